//! LibreOffice on a test desktop, as the Writer and Impress tasks start it:
//! its gtk3 plugin, a private profile (so that no two tests share its
//! single-instance pipe) that shows neither the tip of the day nor the
//! template chooser, and the diff of a step as the lines an agent reads.
//!
//! The tasks of Writer, Calc and Impress are its modules, the suite's
//! longest: tests start in the order of their names, two at a time on two
//! cores, and `office::writer::...` starts mid-way, where `writer::...`
//! started last and ran on alone for a minute.

mod calc;
mod impress;
mod writer;

use std::path::Path;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use uidelta_engine::{ActionOutcome, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{require_programs, Desktop};

/// The program itself: `soffice` is a shell script whose restart loop
/// would outlive the test's process group.
pub const SOFFICE: &str = "/usr/lib/libreoffice/program/soffice.bin";
/// Its name on the accessibility bus, whatever its module.
pub const APP: &str = "soffice";
const INSTALL: &str = "libreoffice-writer libreoffice-impress libreoffice-gtk3";
/// How long LibreOffice may take to come up, its first-start restart
/// included.
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// The settings of a fresh LibreOffice profile (`fixtures/libreoffice`): no
/// tip of the day, no first-start wizard or "what's new" bar, no template
/// chooser in Impress.
const SETTINGS: &str =
    include_str!("../../../../../fixtures/libreoffice/registrymodifications.xcu");

/// A desktop running LibreOffice's `module` (`--writer`, `--impress`),
/// once its window `title` is on the accessibility bus, and a session that
/// has read it.
pub fn start(module: &str, title: &str) -> (Desktop, Runtime, Session<Linux>) {
    let desktop = Desktop::start().expect("a virtual desktop");
    let app = launch_on_bus(&desktop, &[module], INSTALL);
    let deadline = Instant::now() + START_TIMEOUT;
    std::mem::forget(app);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let session = rt.block_on(async {
        let mut s = crate::common::session(&desktop).await;
        // The window comes, then its content.
        loop {
            s.observe(APP).await.expect("observe LibreOffice");
            let ready = s
                .find(
                    &format!("role:frame && name:\"{title}\"")
                        .parse()
                        .expect("selector"),
                )
                .len()
                == 1
                && s.find(&"role:status bar".parse().expect("selector")).len() == 1
                && !s
                    .find(&"role:paragraph".parse().expect("selector"))
                    .is_empty();
            if ready {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no window {title:?} with its status bar and a paragraph in LibreOffice"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        // Then it lays out and zooms the document: the task starts once
        // two seconds pass without a change.
        assert!(
            until_quiet(&mut s, deadline).await,
            "LibreOffice never settled"
        );
        s
    });
    (desktop, rt, session)
}

/// Starts LibreOffice with `args` (its module, a document) in a fresh
/// private profile in the desktop's runtime directory, so that no two
/// tests share its single-instance pipe, and returns once it is on the
/// accessibility bus. A fresh profile makes LibreOffice restart once (exit
/// status 81): it is started again then. `install` says which packages
/// give it.
pub fn launch_on_bus(desktop: &Desktop, args: &[&str], install: &str) -> uidelta_testkit::App {
    require_programs(&[("Xvfb", "xvfb"), (SOFFICE, install)]).expect("programs");
    let profile = desktop.runtime_dir().join("libreoffice");
    write_profile(&profile);
    let profile_arg = format!("-env:UserInstallation=file://{}", profile.display());
    let deadline = Instant::now() + START_TIMEOUT;
    let mut app = launch(desktop, args, &profile_arg);
    loop {
        let names = desktop.accessible_apps().unwrap_or_default();
        if names.iter().any(|n| n == APP) {
            return app;
        }
        assert!(
            Instant::now() < deadline,
            "LibreOffice not on the accessibility bus after {START_TIMEOUT:?} \
             (apt-get install -y {install})"
        );
        if !app.is_running() {
            app = launch(desktop, args, &profile_arg);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn launch(desktop: &Desktop, args: &[&str], profile: &str) -> uidelta_testkit::App {
    let mut command = desktop.command(SOFFICE);
    command
        .args(args)
        .args(["--norestore", "--nologo", profile])
        .env("SAL_USE_VCLPLUGIN", "gtk3")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    desktop.spawn(command).expect("launch LibreOffice")
}

fn write_profile(profile: &Path) {
    let user = profile.join("user");
    std::fs::create_dir_all(&user).expect("profile directory");
    std::fs::write(user.join("registrymodifications.xcu"), SETTINGS).expect("profile settings");
}

/// The diff's lines after its header (whose settle time varies).
pub fn lines(a: &ActionOutcome) -> Vec<String> {
    crate::common::text(a)
        .lines()
        .filter(|l| !l.starts_with("# diff:"))
        .map(str::to_owned)
        .collect()
}

/// Asserts that the diff is `expected`, line by line.
pub fn diff_is(a: &ActionOutcome, expected: &[String]) {
    let got = lines(a);
    assert_eq!(
        got,
        expected,
        "the diff:\n{}\nshould be:\n{}",
        got.join("\n"),
        expected.join("\n")
    );
}

/// The ref of the one element of the session's first scope for which
/// `pick` holds (an element no selector tells apart: a status bar field
/// known by its text).
pub fn ref_where(s: &Session<Linux>, pick: impl Fn(&uidelta_model::NodeData) -> bool) -> String {
    let scope = &s.known_apps()[0];
    let tree = scope.view.tree();
    let hits: Vec<_> = tree.ids().filter(|&id| pick(tree.node(id))).collect();
    assert_eq!(
        hits.len(),
        1,
        "one element should be picked, not {}",
        hits.len()
    );
    scope.refs.get(hits[0]).to_string()
}

/// Asserts that the diff has exactly `count` lines, among them `expected`
/// (its other lines say what LibreOffice does besides: a menu closing, the
/// pointer's place in the status bar).
pub fn diff_has(a: &ActionOutcome, count: usize, expected: &[String]) {
    let got = lines(a);
    for line in expected {
        assert!(
            got.contains(line),
            "no line {line:?} in:\n{}",
            got.join("\n")
        );
    }
    assert_eq!(got.len(), count, "the diff:\n{}", got.join("\n"));
}

/// Ctrl+N: a new document of the same kind in a window of its own,
/// titled `title`, waited for while LibreOffice builds its content (for
/// seconds, as an agent told so would). Its window's ref.
pub async fn new_document(s: &mut Session<Linux>, title: &str) -> String {
    let opts = uidelta_engine::ActOptions::default();
    let a = s.key(APP, "ctrl+n", &opts).await.expect("ctrl+n");
    let (_, window) = until_opened(s, a).await;
    let frame = crate::common::ref_of(s, &format!("role:frame && name:\"{title}\""));
    assert_eq!(window, frame);
    until_quiet(s, Instant::now() + Duration::from_secs(20)).await;
    frame
}

/// Waits until LibreOffice changes nothing for two seconds, as an agent
/// told to wait would, or `deadline` passes: whether it did.
async fn until_quiet(s: &mut Session<Linux>, deadline: Instant) -> bool {
    loop {
        let changed = s
            .wait_for_change(APP, Duration::from_secs(2))
            .await
            .expect("wait for LibreOffice to settle");
        if !crate::steps::changed(&changed) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
    }
}

/// `a`, the answer to an action that opens a window, or, when LibreOffice
/// was still building it at the wait's cap (Format > Character lists its
/// fonts for seconds under load), the answer of waiting for it, as an agent
/// told so would wait; with the ref of the window opened. Any other answer
/// without a window fails.
pub async fn until_opened(s: &mut Session<Linux>, mut a: ActionOutcome) -> (ActionOutcome, String) {
    for _ in 0..5 {
        let opened = a.diff.opened().next().map(|w| w.root().r#ref.to_string());
        if let Some(window) = opened {
            return (a, window);
        }
        let note = a.note.clone().unwrap_or_default();
        assert!(
            note.starts_with("the application was still busy at the settle cap"),
            "no window opened after {} ({:?}; changes {}, switch {:?}, earlier {}), and {note:?}:\n{}",
            a.done.method,
            a.settled,
            a.diff.has_changes(),
            a.app_switch.as_ref().map(|s| s.app.name.clone()),
            a.earlier.len(),
            crate::common::text(&a)
        );
        a = s
            .wait_for_change(APP, Duration::from_secs(20))
            .await
            .expect("wait for the window");
    }
    panic!("no window opened:\n{}", crate::common::text(&a));
}
