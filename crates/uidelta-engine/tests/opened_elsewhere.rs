//! A window another process opens during an action (GIMP's plug-ins show
//! their dialogs from processes of their own) is followed, though the
//! acting application says it kept the focus; a process that comes onto
//! the bus without a window is waited for, a bounded time. A scripted
//! backend stands in for the desktop: the process appears, then shows its
//! window, at the test's bidding.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use uidelta_backend::{
    Action, App, Backend, Error, ErrorKind, EventStream, Performed, Result, Scope, Window,
};
use uidelta_engine::{ActOptions, Session, Settle};
use uidelta_model::{Meta, NodeData, Role, Snapshot, State, TreeBuilder};

/// The application `editor`, with a button; once it is clicked, the
/// process `plugin` (pid 4242) is off the bus for the first `offbus`
/// listings after the click, then on the bus without a window for the
/// next `windowless`, then with an active dialog (never, when `windowless`
/// is `usize::MAX`). The backend says the editor started it when
/// `says_started`.
struct Scripted {
    clicked: AtomicUsize,
    listings: AtomicUsize,
    offbus: usize,
    windowless: usize,
    says_started: bool,
}

const PLUGIN_PID: u32 = 4242;

fn node(role: Role, name: &str, id: &str) -> NodeData {
    let mut n = NodeData::named(role, name);
    n.identity = Some(id.to_owned());
    n.states.insert(State::Enabled);
    n.states.insert(State::Showing);
    n
}

fn app(name: &str, windows: Vec<Window>) -> App {
    App {
        name: name.into(),
        pid: None,
        id: format!(":1.{name}"),
        windows,
        error: None,
    }
}

fn window(role: &str, title: &str, active: bool) -> Window {
    Window {
        title: title.into(),
        role: role.into(),
        id: format!("/{title}"),
        active,
        showing: true,
    }
}

fn unsupported<T>(what: &str) -> Result<T> {
    Err(Error::new(
        ErrorKind::Unsupported,
        format!("{what}: the scripted desktop has none"),
    ))
}

impl Backend for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        // The editor keeps saying its window is active.
        let mut apps = vec![app("editor", vec![window("frame", "Editor", true)])];
        if self.clicked.load(Ordering::SeqCst) > 0 {
            let listed = self.listings.fetch_add(1, Ordering::SeqCst);
            if listed < self.offbus {
                return Ok(apps);
            }
            let windows = if listed - self.offbus < self.windowless {
                Vec::new()
            } else {
                vec![window("dialog", "Export Options", true)]
            };
            let mut plugin = app("plugin", windows);
            plugin.pid = Some(PLUGIN_PID);
            apps.push(plugin);
        }
        Ok(apps)
    }

    async fn started(&self, app: &App, _since: std::time::Instant) -> Vec<u32> {
        let started =
            app.name == "editor" && self.says_started && self.clicked.load(Ordering::SeqCst) > 0;
        if started {
            vec![PLUGIN_PID]
        } else {
            Vec::new()
        }
    }

    async fn capture(&self, app: &App, _scope: &Scope) -> Result<Snapshot> {
        let mut b = TreeBuilder::new(node(Role::Application, &app.name, &app.id));
        if app.name == "editor" {
            b.open(node(Role::Frame, "Editor", "editor/1"));
            b.leaf(node(Role::PushButton, "Export", "editor/2"));
            b.close();
        } else {
            b.open(node(Role::Dialog, "Export Options", "plugin/1"));
            b.leaf(node(Role::PushButton, "OK", "plugin/2"));
            b.close();
        }
        let meta = Meta {
            source: "scripted".into(),
            app: Some(app.name.clone()),
            ..Meta::default()
        };
        Ok(Snapshot::new(meta, b.finish()))
    }

    async fn act(&self, _app: &App, _node: &NodeData, _action: &Action) -> Result<Performed> {
        self.clicked.fetch_add(1, Ordering::SeqCst);
        Ok(Performed {
            method: "scripted click".into(),
        })
    }

    async fn key(&self, _app: &App, _chord: &str) -> Result<Performed> {
        unsupported("keys")
    }

    async fn events(&self, _app: &App) -> Result<EventStream> {
        let (_tx, stream) = EventStream::channel();
        Ok(stream)
    }

    async fn screenshot(&self, _area: Option<uidelta_model::Rect>) -> Result<Vec<u8>> {
        unsupported("a screen")
    }

    async fn open(&self, program: &str, _args: &[String], _timeout: Duration) -> Result<App> {
        unsupported(&format!("opening {program}"))
    }

    async fn close_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        unsupported("windows")
    }

    async fn activate_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        unsupported("windows")
    }
}

fn no_wait() -> ActOptions {
    ActOptions {
        settle: Settle::None,
        ..ActOptions::default()
    }
}

async fn click_export(windowless: usize) -> uidelta_engine::ActionOutcome {
    click_export_started(0, windowless, true).await
}

async fn click_export_started(
    offbus: usize,
    windowless: usize,
    says_started: bool,
) -> uidelta_engine::ActionOutcome {
    let backend = Arc::new(Scripted {
        clicked: AtomicUsize::new(0),
        listings: AtomicUsize::new(0),
        offbus,
        windowless,
        says_started,
    });
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("editor").await.expect("read the editor");
    s.act(
        "role:push button && name:Export",
        &Action::Click,
        &no_wait(),
    )
    .await
    .expect("click Export")
}

#[tokio::test]
async fn a_dialog_another_process_opens_is_followed() {
    // The plug-in is on the bus at once, and shows its dialog two
    // listings later.
    let acted = click_export(2).await;
    let switched = acted.app_switch.expect("the plug-in's dialog");
    assert_eq!(switched.app.name, "plugin");
    let text = uidelta_render::diff_text(&switched.diff, &Default::default());
    assert!(
        text.starts_with("# diff: +1 added\n+ [e") && text.contains("] dialog \"Export Options\""),
        "{text}"
    );
}

#[tokio::test]
async fn a_process_that_shows_no_window_is_waited_for_a_bounded_time() {
    // The wait ends, with nothing to follow.
    let acted = click_export(usize::MAX).await;
    assert!(acted.app_switch.is_none(), "{:?}", acted.app_switch);
}

#[tokio::test]
async fn a_program_started_by_the_action_is_waited_for_until_it_joins_the_bus() {
    // The plug-in is off the bus at the first two listings (starting on a
    // busy machine), then shows its dialog at once.
    let acted = click_export_started(2, 0, true).await;
    let switched = acted.app_switch.expect("the plug-in's dialog");
    assert_eq!(switched.app.name, "plugin");
    let text = uidelta_render::diff_text(&switched.diff, &Default::default());
    assert!(text.contains("] dialog \"Export Options\""), "{text}");
    // Where the backend cannot say what the editor started, the answer
    // comes without it.
    let acted = click_export_started(2, 0, false).await;
    assert!(acted.app_switch.is_none(), "{:?}", acted.app_switch);
}
