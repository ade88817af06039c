//! Commands on the live desktop: the accessibility bus and X display of the
//! session in the environment (`DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use uidelta_atspi::CaptureOptions;
use uidelta_linux::Linux;
use uidelta_model::Snapshot;

pub use uidelta_linux::Scope;

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// `uidelta apps`: one line per application, windows indented under it.
pub fn apps() -> Result<ExitCode> {
    let apps = runtime()?.block_on(async {
        let linux = Linux::connect(None, None).await?;
        anyhow::Ok(uidelta_backend::Backend::apps(&linux).await?)
    })?;
    let out = uidelta_render::apps_text(&apps);
    crate::emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Captures an application, or one of its windows.
pub fn capture(app: &str, scope: Scope) -> Result<Snapshot> {
    runtime()?.block_on(async {
        let linux = Linux::connect(None, None).await?;
        let info = linux.app(app).await?;
        Ok(linux
            .capture(&info, &scope, &CaptureOptions::default())
            .await?)
    })
}

/// `uidelta screenshot`: the screen, or one application window, as PNG.
pub fn screenshot(out: &Path, app: Option<&str>, window: Option<&str>) -> Result<ExitCode> {
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
