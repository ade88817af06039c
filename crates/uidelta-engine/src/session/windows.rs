//! Window operations: closing a window, or raising it and giving it the
//! keyboard, then the diff of its application, as an action's.

use std::time::Instant;

use uidelta_backend::{Backend, ErrorKind, Performed};
use uidelta_diff::Handle;
use uidelta_model::{NodeId, State};

use super::refs::handle_text;
use super::{ActionOutcome, Session};
use crate::error::{Error, Result};
use crate::settle::settled;
use crate::settle::Settle;
use crate::AppId;

/// What to do with a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowAction {
    /// Ask it to close, as its title bar's close button does.
    Close,
    /// Raise it and give it the keyboard.
    Activate,
}

impl<B: Backend> Session<B> {
    /// Does `what` to the window that holds `target` (a ref or selector of
    /// any element of it, the window included), then waits as `settle`
    /// says and answers with the diff of its application, or that it
    /// exited (closing its last window may end it; [`ActionOutcome::exited`]).
    pub async fn window_action(
        &mut self,
        target: &str,
        what: WindowAction,
        settle: Settle,
    ) -> Result<ActionOutcome> {
        let (idx, node) = self.resolve(target).await?;
        let known = &self.known[idx];
        let tree = known.view.tree();
        let window = std::iter::once(node)
            .chain(tree.ancestors(node))
            .find(|&n| tree.parent(n) == Some(NodeId::ROOT))
            .ok_or_else(|| {
                Error::NoWindow(format!(
                    "{} is the application {}, not an element of one of its windows",
                    handle_text(&known.handle(node)),
                    known.app.label()
                ))
            })?;
        // The result names what was closed, or what was given the keyboard.
        let handle = match what {
            WindowAction::Close => known.handle(window),
            WindowAction::Activate => known.handle(node),
        };
        self.act_on_window(idx, window, handle, what, settle).await
    }

    /// Does `what` to `app`'s window titled `title` (exactly, in any case,
    /// or a unique prefix; a ref of a window also names it), or to its
    /// window that has the keyboard ([`crate::KnownApp::main_window`]: a modal
    /// one that shows, else the active one, else the first shown) when
    /// there is no title, as
    /// [`Session::window_action`] does.
    pub async fn app_window_action(
        &mut self,
        app: &str,
        title: Option<&str>,
        what: WindowAction,
        settle: Settle,
    ) -> Result<ActionOutcome> {
        let idx = self.look(app).await?;
        let known = &self.known[idx];
        let window = match title {
            Some(title) => known.window_named(title).map_err(Error::NoWindow)?,
            None => known
                .main_window()
                .ok_or_else(|| Error::NoWindow(format!("{} shows no window", known.app.label())))?,
        };
        let handle = known.handle(window);
        self.act_on_window(idx, window, handle, what, settle).await
    }

    async fn act_on_window(
        &mut self,
        idx: AppId,
        window: NodeId,
        target: Handle,
        what: WindowAction,
        settle: Settle,
    ) -> Result<ActionOutcome> {
        let app = self.known[idx].app.clone();
        let data = self.known[idx].node(window).clone();
        // A window that has the keyboard already is only raised, which
        // changes nothing in the tree: waiting for a change would wait for
        // the cap.
        let settle = match (what, settle) {
            (WindowAction::Activate, Settle::Auto(_)) if data.states.contains(State::Active) => {
                Settle::None
            }
            _ => settle,
        };
        let done = match what {
            WindowAction::Close => self.backend.close_window(&app, &data).await?,
            WindowAction::Activate => self.backend.activate_window(&app, &data).await?,
        };
        self.settle_after_window(idx, done, target, settle).await
    }

    /// Waits as `settle` says (auto compares captures, as for a backend
    /// without events: a window manager's work sends the application no
    /// events to wait on), then diffs the application, unless it exited.
    async fn settle_after_window(
        &mut self,
        idx: AppId,
        done: Performed,
        target: Handle,
        settle: Settle,
    ) -> Result<ActionOutcome> {
        let app = self.known[idx].app.clone();
        let started = Instant::now();
        let settled = match settle {
            Settle::None => settled(started, false, 0),
            Settle::Fixed(d) => {
                tokio::time::sleep(d).await;
                settled(started, false, 0)
            }
            Settle::Auto(quiet) => self.settle_by_polling(idx, quiet, started).await?.0,
        };
        let alive = self.backend.apps().await?.iter().any(|a| a.id == app.id);
        if !alive {
            return Ok(self.exited(idx, done, target, settled));
        }
        // The registry can still list an application that is exiting: the
        // capture then finds it gone.
        let (_, mut diff) = match self.observe_app(app.clone()).await {
            Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                return Ok(self.exited(idx, done, target, settled));
            }
            observed => observed?,
        };
        diff.settle_ms = Some(settled.elapsed.as_millis() as u64);
        diff.settle_capped = settled.capped;
        Ok(ActionOutcome {
            done,
            target,
            app,
            diff,
            settled,
            app_switch: None,
            earlier: Vec::new(),
            note: None,
            exited: false,
        })
    }
}
