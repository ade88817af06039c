//! The AT-SPI adapter on LibreOffice Calc, whose sheet is a table of
//! 1,048,576 × 16,384 cells that makes its cells on demand: a capture reads
//! the cells on screen, and nothing else asks it for all of them.

use std::time::{Duration, Instant};

use uidelta_atspi::{capture, find_app, Actor, Bus, CaptureOptions, Error, NodeAddr};
use uidelta_model::Role;
use uidelta_testkit::{require_programs, App, Desktop};

const SOFFICE: &str = "/usr/lib/libreoffice/program/soffice.bin";
const INSTALL: &str = "libreoffice-calc libreoffice-gtk3";

/// The settings of a fresh LibreOffice profile (`fixtures/libreoffice`): no
/// tip of the day, no first-start wizard or "what's new" bar, no template
/// chooser in Impress.
const SETTINGS: &str = include_str!("../../../fixtures/libreoffice/registrymodifications.xcu");

/// Calc on an empty sheet, in a profile of its own; LibreOffice ends its
/// first start in a new profile to start again (exit code 81), and is
/// started again then.
fn calc() -> (Desktop, App) {
    require_programs(&[("Xvfb", "xvfb"), (SOFFICE, INSTALL)]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let profile = desktop.runtime_dir().join("libreoffice");
    std::fs::create_dir_all(profile.join("user")).expect("profile");
    std::fs::write(
        profile.join("user").join("registrymodifications.xcu"),
        SETTINGS,
    )
    .expect("settings");
    let env = format!("-env:UserInstallation=file://{}", profile.display());
    let args = ["--calc", "--norestore", "--nologo", env.as_str()];
    let mut app = desktop.launch(SOFFICE, &args).expect("launch");
    let began = Instant::now();
    while desktop
        .wait_for_accessible_app("soffice", Duration::from_secs(2))
        .is_err()
    {
        if !app.is_running() {
            app = desktop.launch(SOFFICE, &args).expect("launch again");
        }
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "Calc on the accessibility bus (apt-get install -y {INSTALL})"
        );
    }
    (desktop, app)
}

/// CPU time (user and system, clock ticks) of `pid` so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = stat.rsplit_once(") ").map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

#[test]
fn no_search_for_popovers_walks_the_sheet() {
    let (desktop, app) = calc();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let bus = Bus::connect(Some(desktop.session_bus_address()))
            .await
            .expect("the accessibility bus");
        let info = find_app(&bus, "soffice").await.expect("Calc");
        // Until the sheet shows.
        let mut snap = None;
        for _ in 0..60 {
            let s = capture(&bus, &info.app, None, None, &CaptureOptions::default())
                .await
                .expect("capture");
            if s.tree().nodes().iter().any(|n| n.role == Role::TableCell) {
                snap = Some(s);
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let snap = snap.expect("the sheet's cells");
        let sheet = snap
            .tree()
            .nodes()
            .iter()
            .find(|n| n.role == Role::Table)
            .expect("the sheet");
        let size = sheet.value.as_deref().unwrap_or_default();
        assert!(
            size.starts_with("1048576 rows × 16384 columns; rows 1-"),
            "{size}"
        );
        let frame = snap
            .tree()
            .nodes()
            .iter()
            .find(|n| n.role == Role::Frame)
            .and_then(|n| n.identity.as_deref())
            .and_then(NodeAddr::from_identity)
            .expect("Calc's window");

        // A search for popovers (`Collection.GetMatches`) in the window
        // would walk every cell of the sheet: it is not made.
        let who = info.app.label();
        let found = Actor::new(&bus, &who).modal_within(&frame).await;
        match found {
            Err(Error::NotFound(why)) => assert!(why.contains("too big to search"), "{why}"),
            other => panic!("a search for popovers in Calc's window: {other:?}"),
        }
        // And Calc is idle: its CPU time does not keep growing.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let before = cpu_ticks(app.pid);
        tokio::time::sleep(Duration::from_secs(3)).await;
        let used = cpu_ticks(app.pid) - before;
        assert!(used < 150, "Calc used {used} ticks of CPU in 3 s");
    });
}
