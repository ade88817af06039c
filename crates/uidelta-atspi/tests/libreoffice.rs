//! The AT-SPI adapter on LibreOffice Calc, whose sheet is a table of
//! 1,048,576 × 16,384 cells that makes its cells on demand: a capture reads
//! the cells on screen, and nothing else asks it for all of them.

use std::time::{Duration, Instant};

use uidelta_atspi::{
    capture, differences, find_app, Actor, Bus, CaptureOptions, Error, Mirror, NodeAddr, Reading,
};
use uidelta_model::{Role, Snapshot, State};
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

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The desktop's accessibility bus, and Calc on it.
async fn connect(desktop: &Desktop) -> (Bus, uidelta_atspi::AppInfo) {
    let bus = Bus::connect(Some(desktop.session_bus_address()))
        .await
        .expect("the accessibility bus");
    let info = find_app(&bus, "soffice").await.expect("Calc");
    (bus, info)
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
    runtime().block_on(async {
        let (bus, info) = connect(&desktop).await;
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

/// Calc's sheet says its selection changed at every move of the cell
/// cursor, and such a change marks all that is below the object read
/// again. The sheet is too big to read whole: it is read with what shows of
/// it at every capture, not cell by cell as held at the last one (on a
/// screen showing 700 cells, that made every move of the cursor a read of
/// the whole tree). The mirror equals a whole walk. And when Calc says
/// nothing, the sheet is not read again at all.
#[test]
fn a_move_of_the_cell_cursor_is_read_in_part() {
    let (desktop, _app) = calc();
    runtime().block_on(async {
        let (bus, info) = connect(&desktop).await;
        let opts = CaptureOptions::default();
        let mut mirror = Mirror::start(&bus, &info.app, None)
            .await
            .expect("a mirror");
        let cell = |s: &Snapshot, name: &str| -> Option<uidelta_model::NodeData> {
            s.tree()
                .nodes()
                .iter()
                .find(|n| n.role == Role::TableCell && n.name == name)
                .cloned()
        };
        // Until the sheet shows, and then until it is quiet.
        let mut first = None;
        for _ in 0..60 {
            let (s, _) = mirror.capture(&bus, None, &opts).await.expect("capture");
            if cell(&s, "B2").is_some() {
                first = Some(s);
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let first = first.expect("the sheet's cells");
        tokio::time::sleep(Duration::from_secs(2)).await;
        mirror.capture(&bus, None, &opts).await.expect("capture");
        let label = info.app.label();
        let actor = Actor::new(&bus, &label);
        let mut readings = Vec::new();
        for name in ["B2", "C3", "B2"] {
            let target = cell(&first, name)
                .and_then(|n| n.identity)
                .and_then(|id| NodeAddr::from_identity(&id))
                .expect("the cell's address");
            actor
                .set_selected(&target, true)
                .await
                .unwrap_or_else(|e| panic!("selecting {name}: {e}"));
            let mut moved = false;
            for _ in 0..40 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let (s, reading) = mirror.capture(&bus, None, &opts).await.expect("capture");
                readings.push(reading);
                if cell(&s, name).is_some_and(|n| n.states.contains(State::Selected)) {
                    moved = true;
                    break;
                }
            }
            assert!(moved, "the cell cursor never came to {name}: {readings:?}");
        }
        // The sheet and a few objects, not its cells one by one (some 550
        // on this screen; with more on a bigger one, more than a quarter
        // of the tree, the whole tree was read).
        assert!(
            readings
                .iter()
                .all(|r| matches!(r, Reading::Part { reread, .. } if *reread < 50)),
            "a move of the cell cursor read the sheet's cells one by one: {readings:?}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (mirrored, _) = mirror.capture(&bus, None, &opts).await.expect("capture");
        let whole = capture(&bus, &info.app, None, None, &opts)
            .await
            .expect("a whole walk");
        let differ = differences(&mirrored, &whole, 5, true);
        assert!(differ.is_empty(), "the mirror differs: {differ:?}");

        // Once Calc is quiet, a capture reads none of the sheet's cells
        // again: it said nothing, so what shows of the sheet is as it was.
        let mut quiet = Vec::new();
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let (_, reading) = mirror.capture(&bus, None, &opts).await.expect("capture");
            quiet.push(reading);
        }
        assert!(
            quiet
                .iter()
                .any(|r| matches!(r, Reading::Part { new: 0, .. })),
            "every capture of a quiet Calc read the sheet's cells again: {quiet:?}"
        );
    });
}

/// LibreOffice's objects are read one by one, their name, description and
/// child count in one `Properties.GetAll` (`Profile::answers_get_all`):
/// what it answers is what a `Get` of each answers.
#[test]
fn get_all_answers_what_each_get_does() {
    use std::collections::HashMap;
    use zbus::zvariant::OwnedValue;

    const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
    const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
    let (desktop, _app) = calc();
    runtime().block_on(async {
        let (bus, info) = connect(&desktop).await;
        let conn = bus.connection();
        let dest = info.app.bus_name.as_str();
        let mut todo = vec!["/org/a11y/atspi/accessible/root".to_string()];
        let mut read = 0;
        while let Some(path) = todo.pop() {
            if read == 300 {
                break;
            }
            let Ok(all) = conn
                .call_method(
                    Some(dest),
                    path.as_str(),
                    Some(PROPERTIES),
                    "GetAll",
                    &(ACCESSIBLE,),
                )
                .await
            else {
                // Gone meanwhile (LibreOffice makes and frees objects).
                continue;
            };
            let all: HashMap<String, OwnedValue> = all.body().deserialize().expect("a{sv}");
            for name in ["Name", "Description", "ChildCount"] {
                let one = conn
                    .call_method(
                        Some(dest),
                        path.as_str(),
                        Some(PROPERTIES),
                        "Get",
                        &(ACCESSIBLE, name),
                    )
                    .await
                    .expect("Get");
                let one: OwnedValue = one.body().deserialize().expect("v");
                assert_eq!(all.get(name), Some(&one), "{name} of {path}");
            }
            read += 1;
            let count = all
                .get("ChildCount")
                .and_then(|c| i32::try_from(c).ok())
                .unwrap_or(0);
            // Never a sheet's cells.
            if count > 0 && count < 1000 {
                let children = conn
                    .call_method(
                        Some(dest),
                        path.as_str(),
                        Some(ACCESSIBLE),
                        "GetChildren",
                        &(),
                    )
                    .await
                    .expect("GetChildren");
                let children: Vec<(String, zbus::zvariant::OwnedObjectPath)> =
                    children.body().deserialize().expect("a(so)");
                todo.extend(
                    children
                        .into_iter()
                        .filter(|(b, _)| b == dest)
                        .map(|(_, p)| p.as_str().to_owned()),
                );
            }
        }
        assert_eq!(read, 300, "Calc has 300 objects to read");
    });
}
