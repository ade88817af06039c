//! Commands on the live desktop (the accessibility bus and X display of the
//! session in the environment: `DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`) or in
//! a browser (`--browser`, `--cdp URL`).

use crate::Status;
use std::path::Path;

use anyhow::{Context, Result};
use uidelta_backend::{App, Backend};
use uidelta_linux::Linux;
use uidelta_model::Snapshot;

use crate::place::{Connected, Place};

pub use uidelta_linux::Scope;

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// `uidelta apps`: one line per application, windows indented under it
/// (in a browser: one per tab).
pub fn apps(place: &Place) -> Result<Status> {
    let apps = runtime()?.block_on(async {
        let connected = place.connect().await?;
        crate::place::apps(&connected).await
    })?;
    let out = uidelta_render::apps_text(&apps);
    crate::emit(&out)?;
    Ok(Status::SUCCESS)
}

/// Captures an application, or one of its windows (in a browser: a tab).
pub fn capture(app: &str, scope: Scope, place: &Place) -> Result<Snapshot> {
    runtime()?.block_on(async {
        let connected = place.connect().await?;
        // The desktop finds applications on its accessibility bus, and says
        // so when none is named that way.
        let on_desktop = match &connected {
            Connected::Desktop(linux) => Some(linux.app(app).await?),
            Connected::Browser(..) => None,
        };
        let backend = connected.into_backend();
        let (found, scope) = match on_desktop {
            Some(found) => (found, scope),
            // In a browser, a tab is captured whole.
            None => (
                uidelta_engine::Session::new(backend.clone())
                    .find_app(app)
                    .await?,
                Scope::App,
            ),
        };
        Ok(backend.capture(&found, &scope).await?)
    })
}

/// Captures the tab opened with --url, or the active tab.
pub fn capture_tab(place: &Place) -> Result<Snapshot> {
    runtime()?.block_on(async {
        let connected = place.connect().await?;
        let Connected::Browser(_, tab) = &connected else {
            anyhow::bail!("give a snapshot file or --app NAME");
        };
        let tab = tab.clone();
        Ok(connected.into_backend().capture(&tab, &Scope::App).await?)
    })
}

/// `uidelta screenshot`: the screen, or one application window, as PNG.
pub fn screenshot(
    out: &Path,
    app: Option<&str>,
    window: Option<&str>,
    place: &Place,
) -> Result<Status> {
    if place.is_browser() {
        let png = runtime()?.block_on(async {
            let connected = place.connect().await?;
            // The tab opened with --url is the active one.
            if let Connected::Desktop(_) = connected {
                anyhow::bail!("no browser to take a screenshot of");
            }
            if app.is_some() || window.is_some() {
                anyhow::bail!(
                    "in a browser the screenshot is of the active tab (or --url's); \
                     --app and --window choose desktop windows"
                );
            }
            anyhow::Ok(connected.into_backend().screenshot(None).await?)
        })?;
        std::fs::write(out, &png).with_context(|| format!("writing {}", out.display()))?;
        crate::emit(&format!("{} ({} bytes)\n", out.display(), png.len()))?;
        return Ok(Status::SUCCESS);
    }
    let png = runtime()?.block_on(async {
        let linux = Linux::connect(None, None).await?;
        let area = match app {
            Some(name) => {
                let found = linux.app(name).await?;
                let title = match window {
                    Some(t) => t.to_owned(),
                    None => found
                        .windows
                        .iter()
                        .find(|w| w.active)
                        .or_else(|| found.windows.iter().find(|w| w.showing))
                        .map(|w| w.title.clone())
                        .with_context(|| format!("{} shows no window", bus_label(&found)))?,
                };
                Some(linux.window_bounds(&found, &title).await?)
            }
            None => None,
        };
        anyhow::Ok(linux.screenshot(area).await?)
    })?;
    std::fs::write(out, &png).with_context(|| format!("writing {}", out.display()))?;
    crate::emit(&format!("{} ({} bytes)\n", out.display(), png.len()))?;
    Ok(Status::SUCCESS)
}

/// An application of the desktop as its messages name it: its name as the
/// bus gives it, with its process id (else its bus name).
fn bus_label(app: &App) -> String {
    match app.pid {
        Some(pid) => format!("{} (pid {pid})", app.name),
        None => format!("{} ({})", app.name, app.id),
    }
}
