//! Commands on the live desktop (the accessibility bus and X display of the
//! session in the environment: `DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`) or in
//! a browser (`--browser`, `--cdp URL`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use uidelta_atspi::CaptureOptions;
use uidelta_backend::Backend;
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
pub fn apps(place: &Place) -> Result<ExitCode> {
    let apps = runtime()?.block_on(async {
        let connected = place.connect().await?;
        crate::place::apps(&connected).await
    })?;
    let out = uidelta_render::apps_text(&apps);
    crate::emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Captures an application, or one of its windows (in a browser: a tab).
pub fn capture(app: &str, scope: Scope, place: &Place) -> Result<Snapshot> {
    runtime()?.block_on(async {
        match place.connect().await? {
            Connected::Desktop(linux) => {
                let info = linux.app(app).await?;
                Ok(linux
                    .capture(&info, &scope, &CaptureOptions::default())
                    .await?)
            }
            Connected::Browser(cdp, _) => {
                let session = uidelta_engine::Session::new(cdp.clone());
                let tab = session.find_app(app).await?;
                Ok(cdp.capture(&tab, &uidelta_backend::Scope::App).await?)
            }
        }
    })
}

/// Captures the tab opened with --url, or the active tab.
pub fn capture_tab(place: &Place) -> Result<Snapshot> {
    runtime()?.block_on(async {
        match place.connect().await? {
            Connected::Browser(cdp, tab) => {
                Ok(cdp.capture(&tab, &uidelta_backend::Scope::App).await?)
            }
            Connected::Desktop(_) => anyhow::bail!("give a snapshot file or --app NAME"),
        }
    })
}

/// `uidelta screenshot`: the screen, or one application window, as PNG.
pub fn screenshot(
    out: &Path,
    app: Option<&str>,
    window: Option<&str>,
    place: &Place,
) -> Result<ExitCode> {
    if place.is_browser() {
        let png = runtime()?.block_on(async {
            match place.connect().await? {
                // The tab opened with --url is the active one.
                Connected::Browser(cdp, _) => {
                    if app.is_some() || window.is_some() {
                        anyhow::bail!(
                            "in a browser the screenshot is of the active tab (or --url's); \
                             --app and --window choose desktop windows"
                        );
                    }
                    anyhow::Ok(cdp.screenshot(None).await?)
                }
                Connected::Desktop(_) => anyhow::bail!("no browser to take a screenshot of"),
            }
        })?;
        std::fs::write(out, &png).with_context(|| format!("writing {}", out.display()))?;
        crate::emit(&format!("{} ({} bytes)\n", out.display(), png.len()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let png = runtime()?.block_on(async {
        let linux = Linux::connect(None, None).await?;
        let area = match app {
            Some(name) => {
                let info = linux.app(name).await?;
                let title = match window {
                    Some(t) => t.to_owned(),
                    None => info
                        .windows
                        .iter()
                        .find(|w| w.active)
                        .or_else(|| info.windows.iter().find(|w| w.showing))
                        .map(|w| w.title.clone())
                        .with_context(|| format!("{} shows no window", info.app.label()))?,
                };
                Some(linux.window_bounds(&info, &title).await?)
            }
            None => None,
        };
        anyhow::Ok(linux.screenshot(area)?)
    })?;
    std::fs::write(out, &png).with_context(|| format!("writing {}", out.display()))?;
    crate::emit(&format!("{} ({} bytes)\n", out.display(), png.len()))?;
    Ok(ExitCode::SUCCESS)
}
