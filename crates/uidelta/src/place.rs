//! Where live commands act: the desktop of this session (default), a
//! headless Chromium started for the command (`--browser`), or a running
//! Chromium (`--cdp URL`). In a browser every tab is an application.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use uidelta_backend::{App, Backend};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_linux::{Linux, Reconnecting};

use crate::backend::AnyBackend;

/// How long opening a page with `--url` may take.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// The options that choose where a live command acts.
#[derive(Args, Debug, Clone, Default)]
pub struct Place {
    /// Act in a headless Chromium started for this command (a fresh profile,
    /// stopped at the end) instead of on the desktop. Give the page with --url.
    #[arg(long, conflicts_with = "cdp")]
    pub browser: bool,
    /// Act in a running Chromium started with --remote-debugging-port:
    /// `ws://...`, `http://127.0.0.1:9222`, or the port.
    #[arg(long, value_name = "URL")]
    pub cdp: Option<String>,
    /// With --browser or --cdp: open this page in a new tab first; that tab
    /// is then the application the command acts on.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

/// A backend to act on, with the application to act on when none was named.
pub enum Connected {
    /// The desktop.
    Desktop(Arc<Linux>),
    /// A browser, and the tab opened with --url or else the active tab.
    Browser(Arc<Cdp>, App),
}

impl Place {
    /// Whether the command acts in a browser.
    pub fn is_browser(&self) -> bool {
        self.browser || self.cdp.is_some()
    }

    /// The desktop, for a server: connected on its first call, and again
    /// after the desktop restarted (see [`Reconnecting`]); `None` in a
    /// browser.
    pub fn desktop(&self) -> Result<Option<Reconnecting>> {
        if self.is_browser() {
            return Ok(None);
        }
        if self.url.is_some() {
            anyhow::bail!("--url opens a page in a browser: add --browser or --cdp URL");
        }
        // A server keeps the connection an action came over open itself,
        // and starts no helper process per action (see `connect`).
        Ok(Some(Reconnecting::new(None, None)))
    }

    /// Connects (or starts the browser) and opens --url, for one command.
    pub async fn connect(&self) -> Result<Connected> {
        if !self.is_browser() {
            if self.url.is_some() {
                anyhow::bail!("--url opens a page in a browser: add --browser or --cdp URL");
            }
            let mut linux = Linux::connect(None, None).await?;
            // A command ends before a dialog that an action's handler runs
            // is answered: the action is made by a helper that stays until
            // then (see `Bus::keep_actions_with`). A server (see `desktop`)
            // keeps the action's connection open itself.
            if let Some(helper) = crate::action_helper() {
                linux.keep_actions_with(helper);
            }
            return Ok(Connected::Desktop(Arc::new(linux)));
        }
        let cdp = match &self.cdp {
            Some(url) => Cdp::attach(url)
                .await
                .with_context(|| format!("attaching to the browser at {url}"))?,
            None => Cdp::launch(LaunchOptions::default())
                .await
                .context("starting a headless Chromium")?,
        };
        let tab = match &self.url {
            Some(url) => cdp.open(url, &[], OPEN_TIMEOUT).await?,
            None => uidelta_cdp::tab_app(&cdp.active_tab().await?),
        };
        Ok(Connected::Browser(Arc::new(cdp), tab))
    }

    /// The application to act on: the one named, else (in a browser) the
    /// tab opened with --url or the active one; on the desktop, the only
    /// application with a window (services on the bus, such as the
    /// desktop portal, have none), by its name, or by its id when another
    /// application has that name. Otherwise a name is needed, and the
    /// error lists the applications with windows.
    pub async fn app(&self, named: Option<&str>, connected: &Connected) -> Result<String> {
        match (named, connected) {
            (Some(name), _) => Ok(name.to_owned()),
            (None, Connected::Browser(_, tab)) => Ok(tab.id.clone()),
            (None, Connected::Desktop(linux)) => {
                let apps = linux.apps().await?;
                let windowed: Vec<&App> = apps.iter().filter(|a| !a.windows.is_empty()).collect();
                match windowed.as_slice() {
                    [only] => {
                        let named_alike = apps
                            .iter()
                            .filter(|a| a.name.eq_ignore_ascii_case(&only.name))
                            .count();
                        Ok(if named_alike == 1 {
                            only.name.clone()
                        } else {
                            only.id.clone()
                        })
                    }
                    [] => anyhow::bail!(
                        "name the application with --app: none has a window (see `uidelta apps`)"
                    ),
                    many => anyhow::bail!(
                        "name the application with --app; these have windows: {} (see `uidelta apps`)",
                        many.iter()
                            .map(|a| a.label())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            }
        }
    }
}

impl Connected {
    /// The backend connected to, as one type (see [`AnyBackend`]).
    pub fn backend(&self) -> AnyBackend {
        match self {
            Connected::Desktop(linux) => AnyBackend::Desktop(Arc::clone(linux)),
            Connected::Browser(cdp, _) => AnyBackend::Browser(Arc::clone(cdp)),
        }
    }

    /// [`Connected::backend`], taking the connection: a browser started for
    /// the command stops when the backend is dropped.
    pub fn into_backend(self) -> Arc<AnyBackend> {
        Arc::new(match self {
            Connected::Desktop(linux) => AnyBackend::Desktop(linux),
            Connected::Browser(cdp, _) => AnyBackend::Browser(cdp),
        })
    }
}

/// The applications (tabs, in a browser) there are.
pub async fn apps(connected: &Connected) -> Result<Vec<App>> {
    Ok(connected.backend().apps().await?)
}
