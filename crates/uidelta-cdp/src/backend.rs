//! [`Cdp`] as a [`Backend`]: each tab is an application whose one window is
//! its document.

use std::time::Duration;

use uidelta_backend::{Action, App, Backend, EventStream, Navigate, Performed, Result, Scope};
use uidelta_model::{NodeData, Rect, Snapshot};

use crate::{scope_matches, tab_app, Cdp, Error};

impl Backend for Cdp {
    fn name(&self) -> &'static str {
        "cdp"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        Ok(self.tabs().await?.iter().map(tab_app).collect())
    }

    async fn capture(&self, app: &App, scope: &Scope) -> Result<Snapshot> {
        let tab = self.tab(&app.id).await?;
        if !scope_matches(&tab, scope) {
            return Err(Error::NotFound(format!(
                "{} has no window titled `{}`; its one window is {:?}",
                tab.label(),
                match scope {
                    Scope::Window(t) => t.as_str(),
                    _ => "",
                },
                tab.name()
            ))
            .into());
        }
        Ok(self.capture_tab(&app.id).await?)
    }

    async fn act(&self, app: &App, node: &NodeData, action: &Action) -> Result<Performed> {
        Ok(self.act_on(&app.id, node, action).await?)
    }

    async fn click_at(&self, app: &App, x: i32, y: i32, action: &Action) -> Result<Performed> {
        Ok(Cdp::click_at(self, &app.id, x, y, action).await?)
    }

    async fn centre_now(&self, app: &App, node: &NodeData) -> Result<Option<(i32, i32)>> {
        Ok(Cdp::centre_now(self, &app.id, node).await?)
    }

    async fn key(&self, app: &App, chord: &str) -> Result<Performed> {
        Ok(self.press_key(&app.id, chord).await?)
    }

    async fn events(&self, app: &App) -> Result<EventStream> {
        Ok(self.watch(&app.id).await?)
    }

    async fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        Ok(self.screenshot_png(area).await?)
    }

    /// Opens a tab at URL `program`; `args` are not used.
    async fn open(&self, program: &str, _args: &[String], timeout: Duration) -> Result<App> {
        let tab = self.new_tab(program, timeout).await?;
        Ok(tab_app(&tab))
    }

    async fn close_window(&self, app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(self.close_tab(&app.id).await?)
    }

    async fn activate_window(&self, app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(self.switch_tab(&app.id).await?)
    }

    async fn navigate(&self, app: &App, to: &Navigate) -> Result<Performed> {
        Ok(self.navigate_tab(&app.id, to).await?)
    }

    async fn run_script(&self, app: &App, script: &str) -> Result<String> {
        Ok(self.evaluate(&app.id, script).await?)
    }
}
