//! The demo: real applications on a virtual desktop, real actions, the diff
//! of each, and what the delta loop saves against re-reading the tree.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session, Settle, WindowAction};
use uidelta_linux::Linux;
use uidelta_render::{count_tokens, tree_text, DiffOptions, TreeOptions};
use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";
const FIXTURE: &str = "uidelta-fixture";

/// One step of the scripted task: what is said, the target, the action.
struct Step {
    say: &'static str,
    app: &'static str,
    target: &'static str,
    action: Action,
}

fn steps() -> Vec<Step> {
    let step = |say, app, target, action| Step {
        say,
        app,
        target,
        action,
    };
    vec![
        step(
            "tick the first free check box",
            FACTORY,
            "role:check box && state:enabled && !state:checked && !state:indeterminate && nth:0",
            Action::Click,
        ),
        step(
            "type into the first empty entry",
            FACTORY,
            "role:text && state:editable && state:enabled && !state:hidden && value:\"\" && nth:0",
            Action::Type("hello from uidelta".into()),
        ),
        step(
            "set the first spin button to 42",
            FACTORY,
            "role:spin button && state:enabled && nth:0",
            Action::SetValue("42".into()),
        ),
        step(
            "switch the notebook to its second tab",
            FACTORY,
            "role:page tab && !state:selected && state:enabled && nth:0",
            Action::SetSelected(true),
        ),
        step(
            "open the gear menu",
            FACTORY,
            "role:toggle button && name:Menu",
            Action::Click,
        ),
        step(
            "open the About dialog",
            FACTORY,
            "name:About Widget Factory",
            Action::Click,
        ),
        step(
            "close it",
            FACTORY,
            "role:dialog >> role:push button && name:Close",
            Action::Click,
        ),
        step(
            "go to Page 2 (most of the window is replaced)",
            FACTORY,
            "role:radio button && name:Page 2",
            Action::Click,
        ),
        step(
            "fixture: File > Ask..., a menu item whose handler runs a modal dialog (gtk_dialog_run)",
            FIXTURE,
            "role:menu item && name:Ask…",
            Action::Click,
        ),
        step(
            "fixture: answer it",
            FIXTURE,
            "role:alert >> role:push button && name:Yes",
            Action::Click,
        ),
        step(
            "fixture: a dialog that opens 800 ms later and fills in over 300 ms",
            FIXTURE,
            "name:Open details",
            Action::Click,
        ),
        step(
            "fixture: close it",
            FIXTURE,
            "role:dialog >> name:Close",
            Action::Click,
        ),
        step(
            "fixture: a toast that shows for 400 ms",
            FIXTURE,
            "name:Show toast",
            Action::Click,
        ),
        step(
            "fixture: a button that does nothing",
            FIXTURE,
            "name:Do nothing",
            Action::Click,
        ),
    ]
}

/// `s` in bold on a terminal; as it is when stdout is a file or a pipe, or
/// when `NO_COLOR` is set.
fn bold(s: &str) -> String {
    use std::io::IsTerminal;
    let plain = !std::io::stdout().is_terminal() || std::env::var_os("NO_COLOR").is_some();
    if plain {
        s.to_owned()
    } else {
        format!("\x1b[1m{s}\x1b[0m")
    }
}

fn main() -> Result<()> {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("dbus-daemon", "dbus"),
        (FACTORY, "gtk-3-examples"),
        ("/usr/bin/python3", "python3-gi"),
    ])?;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/uidelta-fixture.py"
    );
    println!(
        "{}",
        bold("== starting a virtual desktop (Xvfb, session bus, accessibility bus)")
    );
    let desktop = Desktop::start()?;
    let _factory = desktop.launch(FACTORY, &[])?;
    let _fixture = desktop.launch(fixture, &["--modal"])?;
    for app in [FACTORY, FIXTURE] {
        desktop
            .wait_for_accessible_app(app, Duration::from_secs(30))
            .with_context(|| format!("waiting for {app}"))?;
    }
    println!(
        "display {}, applications: {FACTORY}, {FIXTURE}",
        desktop.display()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(run(&desktop))
}

async fn run(desktop: &Desktop) -> Result<()> {
    let linux =
        Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display())).await?;
    let mut session = Session::new(Arc::new(linux));
    let mut full_loop = 0usize;
    let mut delta_loop = 0usize;
    for app in [FACTORY, FIXTURE] {
        let (idx, _) = session.observe(app).await?;
        let latest = &session.known_apps()[idx];
        let tree = tree_text(&latest.view, &latest.refs, &TreeOptions::default());
        let tokens = count_tokens(&tree);
        full_loop += tokens;
        delta_loop += tokens;
        println!(
            "\n{}",
            bold(&format!(
                "== {app}: the full tree once, {} lines, {tokens} tokens; its first lines:",
                tree.lines().count()
            ))
        );
        for line in tree.lines().take(12) {
            println!("{line}");
        }
        println!("...");
    }
    let mut raised = false;
    for (n, step) in steps().into_iter().enumerate() {
        if step.app == FIXTURE && !raised {
            // The desktop has no window manager: the widget factory's window,
            // mapped last, lies over the fixture's, and pointer clicks would
            // land on it. Raise the fixture's, as a click on its title bar
            // would.
            raised = true;
            println!(
                "\n{}",
                bold("== raising the fixture's window over the widget factory's")
            );
            let acted = session
                .app_window_action(
                    FIXTURE,
                    Some("uidelta fixture"),
                    WindowAction::Activate,
                    Settle::default(),
                )
                .await?;
            if acted.exited {
                anyhow::bail!("the fixture exited when its window was raised");
            }
            println!("# via {}", acted.done.method);
            print!(
                "{}",
                uidelta_render::diff_text(&acted.diff, &DiffOptions::default())
            );
        }
        println!("\n{}", bold(&format!("== step {}: {}", n + 1, step.say)));
        println!(
            "$ uidelta {} --app {} '{}'",
            verb(&step.action),
            step.app,
            step.target
        );
        let acted = session
            .act(step.target, &step.action, &ActOptions::default())
            .await
            .with_context(|| format!("step {}: {}", n + 1, step.say))?;
        // With what changed before the action (a late update of the step
        // before), and the application the focus went to, if it left.
        let diff = acted.text(&DiffOptions::default());
        println!("# {} via {}", acted.target.r#ref, acted.done.method);
        print!("{diff}");
        let idx = session
            .known_apps()
            .iter()
            .position(|s| s.app.id == acted.app.id)
            .context("the acted-on application")?;
        let latest = &session.known_apps()[idx];
        let full = count_tokens(&tree_text(
            &latest.view,
            &latest.refs,
            &TreeOptions::default(),
        ));
        let delta = count_tokens(&diff);
        println!("# {delta} tokens here; re-reading the tree would cost {full}");
        full_loop += full;
        delta_loop += delta;
    }
    println!("\n{}", bold("== tokens over the whole task"));
    println!("re-reading the full tree after every step: {full_loop}");
    println!(
        "one full tree per app, then a diff per step:  {delta_loop} ({:.1}% of the full loop)",
        100.0 * delta_loop as f64 / full_loop.max(1) as f64
    );
    Ok(())
}

fn verb(a: &Action) -> &'static str {
    match a {
        Action::Type(_) => "type",
        Action::SetValue(_) => "set-value",
        Action::SetSelected(_) => "select",
        _ => "click",
    }
}
