//! Window management: the X window that is an application's window,
//! found by title (and place), closed and activated; window bounds for
//! screenshots.

use uidelta_atspi::{Actor, AppInfo, NodeAddr, WindowInfo};
use uidelta_backend::{App, Performed};
use uidelta_model::{NodeData, Rect, State};
use uidelta_x11::TopWindow;

use crate::backend::to_info;
use crate::coords::{mapping_between, rect_of};
use crate::{Error, Linux, Result};

impl Linux {
    /// The screen bounds of an application's window, read fresh: the X
    /// window's (frame included) when the display has one of the
    /// application's under that title, since toolkits that report places
    /// within their window (GTK 4) or in unscaled pixels give extents that
    /// are not the display's; else the extents the toolkit reports.
    pub async fn window_bounds(&self, app: &App, title: &str) -> Result<Rect> {
        let app = &to_info(app);
        let w = pick_window(&app.windows, title, &app.app.label())?;
        let on_display = (self.x11.is_some() && !w.title.is_empty())
            .then(|| self.x_window(app, &w.title).ok())
            .flatten();
        if let Some(t) = on_display {
            let (x, y, wd, h) = t.outer;
            let size = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
            return Ok(Rect::new(x, y, size(wd), size(h)));
        }
        let label = app.app.label();
        let addr = NodeAddr {
            bus: app.app.bus_name.clone(),
            path: w.path.clone(),
        };
        let (x, y, wd, h) = Actor::new(&self.bus, &label).extents(&addr).await?;
        Ok(Rect::new(x, y, wd, h))
    }

    fn x_window(&self, app: &AppInfo, title: &str) -> Result<TopWindow> {
        let x11 = self.x11(|| format!("finding window `{title}` of {}", app.app.label()))?;
        let windows = x11.top_windows()?;
        let wanted = title.to_lowercase();
        windows
            .iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .filter(|w| app.app.pid.is_none() || w.pid == app.app.pid)
            .find(|w| w.title.to_lowercase() == wanted)
            .or_else(|| {
                windows
                    .iter()
                    .filter(|w| w.viewable && !w.override_redirect && w.pid == app.app.pid)
                    .find(|w| w.title.to_lowercase().starts_with(&wanted))
            })
            .cloned()
            .ok_or_else(|| {
                Error::NoWindow(format!(
                    "{} has no X window titled `{}` on the display",
                    app.app.label(),
                    uidelta_backend::echo(title)
                ))
            })
    }

    /// The X window that is `window`, a top-level element of a capture of
    /// `app`: the one with its title; of several with that title (gtk3-demo
    /// titles its main window after the demo it runs), the one whose place
    /// fits the element's extents, read fresh.
    async fn x_window_of(&self, app: &AppInfo, window: &NodeData) -> Result<TopWindow> {
        let title = window.name.as_str();
        let x11 = self.x11(|| format!("finding window `{title}` of {}", app.app.label()))?;
        let windows = x11.top_windows()?;
        let wanted = title.to_lowercase();
        let same: Vec<&TopWindow> = windows
            .iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .filter(|w| app.app.pid.is_none() || w.pid == app.app.pid)
            .filter(|w| w.title.to_lowercase() == wanted)
            .collect();
        if same.len() < 2 {
            return self.x_window(app, title);
        }
        let label = app.app.label();
        let fresh = match window.identity.as_deref().and_then(NodeAddr::from_identity) {
            Some(addr) => Actor::new(&self.bus, &label)
                .extents(&addr)
                .await
                .ok()
                .and_then(rect_of),
            None => None,
        };
        let fitting: Vec<&&TopWindow> = match fresh.or(window.bounds) {
            Some(extents) => same
                .iter()
                .filter(|w| mapping_between(extents, w.outer, w.inner).is_some())
                .collect(),
            None => Vec::new(),
        };
        if let [w] = fitting[..] {
            return Ok((*w).clone());
        }
        match same_titled_by_kind(&same, window.states.contains(State::Modal))[..] {
            [w] => Ok(w.clone()),
            _ => Err(Error::NoWindow(format!(
                "{label} has {} windows titled `{title}` on the display, and their places do not \
                 tell which one is meant",
                same.len()
            ))),
        }
    }

    /// Closes `window`, a top-level element of a
    /// capture of `app`, told apart from others with its title.
    pub(crate) async fn close_window_of(
        &self,
        app: &AppInfo,
        window: &NodeData,
    ) -> Result<Performed> {
        self.close_x_window(self.x_window_of(app, window).await?)
    }

    fn close_x_window(&self, w: TopWindow) -> Result<Performed> {
        self.x11(|| "closing a window".into())?.close_window(w.id)?;
        Ok(Performed {
            method: format!("WM_DELETE_WINDOW to {:#x}", w.id),
        })
    }

    /// Raises and gives the keyboard focus to `window`, a top-level element of a
    /// capture of `app`, told apart from others with its title.
    pub(crate) async fn activate_window_of(
        &self,
        app: &AppInfo,
        window: &NodeData,
    ) -> Result<Performed> {
        self.activate_x_window(self.x_window_of(app, window).await?)
    }

    fn activate_x_window(&self, w: TopWindow) -> Result<Performed> {
        self.x11(|| "activating a window".into())?
            .activate_window(w.id)?;
        Ok(Performed {
            method: format!("raise and focus {:#x}", w.id),
        })
    }
}

pub(crate) fn pick_window<'w>(
    windows: &'w [WindowInfo],
    title: &str,
    app: &str,
) -> Result<&'w WindowInfo> {
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
    let title = uidelta_backend::echo(title);
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NoWindow(format!(
            "{app} has no window titled `{title}`; its windows: {}",
            titles(windows.iter())
        ))),
        many => Err(Error::NoWindow(format!(
            "`{title}` matches several windows of {app}: {}",
            titles(many.iter().copied())
        ))),
    }
}

pub(crate) fn focused_window<'w>(windows: &'w [WindowInfo], app: &str) -> Result<&'w WindowInfo> {
    windows
        .iter()
        .find(|w| w.active)
        .or_else(|| {
            let showing: Vec<&WindowInfo> = windows.iter().filter(|w| w.showing).collect();
            (showing.len() == 1).then(|| showing[0])
        })
        .ok_or_else(|| {
            Error::NoWindow(format!(
                "{app} has no active window; its windows: {}",
                titles(windows.iter())
            ))
        })
}

fn titles<'w>(windows: impl Iterator<Item = &'w WindowInfo>) -> String {
    let list: Vec<String> = windows.map(|w| format!("{:?}", w.title)).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// Of windows with one title whose places do not tell them apart (a
/// toolkit may report a dialog where it means to put it, not where the
/// display has it: GTK 3 without a window manager), the dialogs of
/// another of them (`WM_TRANSIENT_FOR`) when the element is `modal`, else
/// the others.
fn same_titled_by_kind<'w>(same: &[&'w TopWindow], modal: bool) -> Vec<&'w TopWindow> {
    same.iter()
        .copied()
        .filter(|w| {
            let dialog = w
                .transient_for
                .is_some_and(|p| same.iter().any(|o| o.id == p));
            dialog == modal
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_x11::Area;

    fn window(id: u32, transient_for: Option<u32>) -> TopWindow {
        let area: Area = (0, 0, 800, 600);
        TopWindow {
            id,
            pid: Some(10),
            title: "Pickers".into(),
            viewable: true,
            override_redirect: false,
            outer: area,
            inner: area,
            transient_for,
        }
    }

    #[test]
    fn same_titled_windows_are_told_apart_by_which_is_the_others_dialog() {
        let main = window(7, None);
        let dialog = window(9, Some(7));
        // A dialog of a window that is not among them says nothing.
        let stray = window(11, Some(0x99));
        let same = [&main, &dialog];
        assert_eq!(same_titled_by_kind(&same, true), [&dialog]);
        assert_eq!(same_titled_by_kind(&same, false), [&main]);
        let three = [&main, &dialog, &stray];
        assert_eq!(same_titled_by_kind(&three, false), [&main, &stray]);
    }
}
