//! Commands on the live desktop: the accessibility bus of the session in the
//! environment (`DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`).

use std::process::ExitCode;

use anyhow::{Context, Result};
use uidelta_atspi::{
    applications, capture as capture_app, find_app, Bus, CaptureOptions, WindowInfo,
};
use uidelta_model::Snapshot;

/// What part of an application to capture.
pub enum Scope {
    /// The whole application.
    App,
    /// One window, by title or unique title prefix.
    Window(String),
    /// The active window.
    Focused,
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// `uidelta apps`: one line per application, windows indented under it.
pub fn apps() -> Result<ExitCode> {
    let apps = runtime()?.block_on(async {
        let bus = Bus::connect(None).await?;
        applications(&bus).await
    })?;
    let mut out = String::new();
    for a in &apps {
        out.push_str(&format!("{}  {}", a.app.label(), a.app.bus_name));
        if let Some(e) = &a.error {
            out.push_str(&format!("  (not answering: {e})"));
        }
        out.push('\n');
        for w in &a.windows {
            let mut flags = Vec::new();
            if w.active {
                flags.push("active");
            }
            if !w.showing {
                flags.push("hidden");
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" ({})", flags.join(", "))
            };
            out.push_str(&format!("  {} {:?}{flags}\n", w.role, w.title));
        }
    }
    if apps.is_empty() {
        out.push_str("no applications on the accessibility bus\n");
    }
    crate::emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Captures an application, or one of its windows.
pub fn capture(app: &str, scope: Scope) -> Result<Snapshot> {
    runtime()?.block_on(async {
        let bus = Bus::connect(None).await?;
        let info = find_app(&bus, app).await?;
        let window = match &scope {
            Scope::App => None,
            Scope::Window(title) => Some(pick_window(&info.windows, title, &info.app.label())?),
            Scope::Focused => Some(focused_window(&info.windows, &info.app.label())?),
        };
        let snapshot = capture_app(
            &bus,
            &info.app,
            window.map(|w| w.path.as_str()),
            window.map(|w| w.title.clone()),
            &CaptureOptions::default(),
        )
        .await?;
        Ok(snapshot)
    })
}

fn pick_window<'w>(windows: &'w [WindowInfo], title: &str, app: &str) -> Result<&'w WindowInfo> {
    let wanted = title.to_lowercase();
    let exact: Vec<&WindowInfo> = windows
        .iter()
        .filter(|w| w.title.to_lowercase() == wanted)
        .collect();
    let found: Vec<&WindowInfo> = if exact.is_empty() {
        windows
            .iter()
            .filter(|w| w.title.to_lowercase().starts_with(&wanted))
            .collect()
    } else {
        exact
    };
    match found.as_slice() {
        [one] => Ok(one),
        [] => anyhow::bail!(
            "{app} has no window titled `{title}`; its windows: {}",
            titles(windows)
        ),
        _ => anyhow::bail!(
            "`{title}` matches several windows of {app}: {}",
            titles(&found.iter().map(|w| (*w).clone()).collect::<Vec<_>>())
        ),
    }
}

fn focused_window<'w>(windows: &'w [WindowInfo], app: &str) -> Result<&'w WindowInfo> {
    windows
        .iter()
        .find(|w| w.active)
        .or_else(|| {
            let showing: Vec<&WindowInfo> = windows.iter().filter(|w| w.showing).collect();
            (showing.len() == 1).then(|| showing[0])
        })
        .with_context(|| {
            format!(
                "{app} has no active window; its windows: {}",
                titles(windows)
            )
        })
}

fn titles(windows: &[WindowInfo]) -> String {
    if windows.is_empty() {
        return "none".into();
    }
    windows
        .iter()
        .map(|w| format!("{:?}", w.title))
        .collect::<Vec<_>>()
        .join(", ")
}
