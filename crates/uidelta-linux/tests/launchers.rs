//! Opening an application through a launcher: a program that starts the
//! application under another pid (the `libreoffice` shell script starts
//! `soffice.bin`), or that starts it and leaves. The answer is the
//! application that came up, with its window.

use std::time::Duration;

use uidelta_backend::{App, Backend};
use uidelta_linux::{Linux, Scope};
use uidelta_model::Role;
use uidelta_testkit::{require_programs, Desktop};

/// A wait far beyond what any start takes: reaching it means the
/// application was not recognized.
const CAP: Duration = Duration::from_secs(120);

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

async fn connect(desktop: &Desktop) -> Linux {
    Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .expect("connect")
}

/// The titles of an application's showing windows.
fn shown(app: &App) -> Vec<&str> {
    app.windows
        .iter()
        .filter(|w| w.showing)
        .map(|w| w.title.as_str())
        .collect()
}

/// The command line of a process, its arguments joined by spaces.
fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&raw)
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_libreoffice_script_answers_with_soffice_and_its_window() {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("libreoffice", "libreoffice-writer libreoffice-gtk3"),
    ])
    .expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    // A profile of its own: no other test's LibreOffice answers for it.
    let profile = desktop.runtime_dir().join("libreoffice-profile");
    let profile_arg = format!("-env:UserInstallation=file://{}", profile.display());
    let args = ["--writer".to_owned(), "--norestore".to_owned(), profile_arg];
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let app = linux
            .open_application("libreoffice", &args, &desktop.env(), CAP)
            .await
            .expect("LibreOffice opens through its launcher");
        assert_eq!(app.name, "soffice", "{app:?}");
        let pid = app.pid.expect("a pid");
        // The script passed the profile on to the process that runs.
        let line = command_line(pid);
        assert!(line.contains("soffice.bin"), "{line}");
        assert!(line.contains(&args[2]), "{line}");
        assert!(
            profile.join("user").is_dir(),
            "no profile made in {profile:?}"
        );
        assert_eq!(shown(&app), ["Untitled 1 - LibreOffice Writer"], "{app:?}");
    });
}

#[test]
fn a_launcher_that_leaves_answers_with_the_application_that_appeared() {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("gtk3-widget-factory", "gtk-3-examples"),
        ("setsid", "util-linux"),
    ])
    .expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    // It starts the application in a session of its own, then exits.
    let args = [
        "-c".to_owned(),
        "setsid gtk3-widget-factory >/dev/null 2>&1 & exit 0".to_owned(),
    ];
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let app = linux
            .open_application("sh", &args, &desktop.env(), CAP)
            .await
            .expect("the application the launcher left");
        assert_eq!(app.name, "gtk3-widget-factory", "{app:?}");
        // Its one window (which may not have its title yet).
        assert_eq!(shown(&app).len(), 1, "{app:?}");
        // A program that leaves nothing running and brings up nothing says
        // how it ended, once a moment has passed.
        let nothing = linux
            .open_application("true", &[], &desktop.env(), CAP)
            .await
            .map(|app| app.name)
            .expect_err("`true` shows nothing");
        assert_eq!(
            nothing.to_string(),
            "opening true: it exited before showing a window (exit status: 0; it wrote \
             nothing to stderr), leaving nothing running, and no new application showed a \
             window on the accessibility bus within 10000 ms"
        );
    });
}

#[test]
fn a_gtk2_application_joins_the_bus_when_opened() {
    // GTK 2 loads its accessibility bridge only when asked to
    // (`GTK2_MODULES`); the launcher asks, whatever the caller's
    // environment says.
    require_programs(&[("Xvfb", "xvfb"), ("gtk-demo", "gtk2.0-examples")]).expect("programs");
    // GTK 2's modules, in the library directory of this machine's
    // architecture (`/usr/lib/x86_64-linux-gnu/gtk-2.0/modules`).
    let has_module = |name: &str| {
        std::fs::read_dir("/usr/lib")
            .into_iter()
            .flatten()
            .flatten()
            .any(|arch| arch.path().join("gtk-2.0/modules").join(name).exists())
    };
    assert!(
        has_module("libgail.so") && has_module("libatk-bridge.so"),
        "GTK 2's accessibility modules are missing: apt-get install libgail-common libatk-adaptor"
    );
    let desktop = Desktop::start().expect("a virtual desktop");
    let env: Vec<(String, String)> = desktop
        .env()
        .into_iter()
        .filter(|(k, _)| k != "GTK2_MODULES")
        .collect();
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let app = linux
            .open_application("gtk-demo", &[], &env, CAP)
            .await
            .expect("GTK 2's demo opens and joins the bus");
        assert_eq!(app.name, "gtk-demo", "{app:?}");
        assert_eq!(shown(&app), ["GTK+ Code Demos"], "{app:?}");
        let snap = linux.capture(&app, &Scope::App).await.expect("capture");
        let cells: Vec<&str> = snap
            .tree()
            .nodes()
            .iter()
            .filter(|n| n.role == Role::TableCell)
            .map(|n| n.name.as_str())
            .take(3)
            .collect();
        assert_eq!(
            cells,
            ["Application main window", "Assistant", "Builder"],
            "{snap:?}"
        );
    });
}
