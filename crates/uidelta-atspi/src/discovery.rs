//! What is on the accessibility bus: applications, their windows, and
//! which window is active.

use futures_util::future::join_all;
use zbus::zvariant::OwnedObjectPath;

use uidelta_model::State;

use crate::bus::{Bus, Target};
use crate::capture::{AppRef, ROOT_PATH};
use crate::error::{Error, Result};
use crate::interfaces::{accessible, component, dbus, ObjRef, REGISTRY_NAME};
use crate::state;
use crate::toolkit::Profile;

/// One application on the bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppInfo {
    /// Name, pid and bus name.
    pub app: AppRef,
    /// Its top-level windows.
    pub windows: Vec<WindowInfo>,
    /// Set when the application did not answer (hung, stopped); it is
    /// listed anyway so that one bad application hides no other.
    pub error: Option<String>,
}

/// One top-level window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowInfo {
    /// The title (the accessible name).
    pub title: String,
    /// Role name (`frame`, `dialog`, `window`).
    pub role: String,
    /// Object path, to capture just this window.
    pub path: String,
    /// Whether it is the active window.
    pub active: bool,
    /// Whether it is shown.
    pub showing: bool,
}

/// Lists the applications on the bus with their windows. An application
/// that does not answer is listed with `error` set. Those with a window
/// shown come first, in the registry's order, then those whose windows are
/// all hidden or that do not answer, then those without windows (a
/// desktop's portals and services, which every GTK application can start).
pub async fn applications(bus: &Bus) -> Result<Vec<AppInfo>> {
    let registry = Target {
        doing: "listing applications on",
        who: "the accessibility registry",
    };
    let apps: Vec<ObjRef> = bus
        .call(
            &registry,
            REGISTRY_NAME,
            ROOT_PATH,
            accessible::GET_CHILDREN,
            &(),
        )
        .await?;
    let names: Vec<&str> = apps.iter().map(|(name, _)| name.as_str()).collect();
    bus.forget_peers_but(&names);
    let mut infos = join_all(apps.iter().map(|(name, _)| describe(bus, name))).await;
    infos.sort_by_key(listing_rank);
    Ok(infos)
}

/// Where an application is listed: 0 with a window shown, 1 with windows
/// all hidden or not answering (its windows are not known), 2 without
/// windows.
fn listing_rank(app: &AppInfo) -> u8 {
    if app.windows.iter().any(|w| w.showing) {
        0
    } else if !app.windows.is_empty() || app.error.is_some() {
        1
    } else {
        2
    }
}

/// The application whose name is `name` (case-insensitive; a unique
/// prefix, or the last part of an application id, will do: see
/// [`uidelta_model::app::names_picked`]). An error lists what is there.
pub async fn find_app(bus: &Bus, name: &str) -> Result<AppInfo> {
    let apps = applications(bus).await?;
    let matches: Vec<&AppInfo> =
        uidelta_model::app::names_picked(apps.iter().map(|a| a.app.name.as_str()), name)
            .into_iter()
            .map(|i| &apps[i])
            .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Error::NotFound(format!(
            "no application named `{name}` on the accessibility bus; there are: {}",
            list(&apps)
        ))),
        many => Err(Error::NotFound(format!(
            "`{name}` matches several applications: {}",
            many.iter()
                .map(|a| a.app.label())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The top-level windows of one application.
pub async fn app_windows(bus: &Bus, app: &AppRef) -> Result<Vec<WindowInfo>> {
    let label = app.label();
    let target = Target {
        doing: "listing windows of",
        who: &label,
    };
    Ok(windows(bus, &target, &app.bus_name).await?.1)
}

fn list(apps: &[AppInfo]) -> String {
    if apps.is_empty() {
        return "none".into();
    }
    apps.iter()
        .map(|a| match a.error {
            // It could not tell its name: its bus name finds it.
            Some(_) => format!("{} (not answering)", a.app.label()),
            None => a.app.label(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

async fn describe(bus: &Bus, bus_name: &str) -> AppInfo {
    let pid = pid_of(bus, bus_name).await;
    let mut app = AppRef {
        name: bus_name.to_owned(),
        pid,
        bus_name: bus_name.to_owned(),
    };
    let label = app.label();
    let target = Target {
        doing: "listing windows of",
        who: &label,
    };
    match windows(bus, &target, bus_name).await {
        Ok((name, windows)) => {
            app.name = name;
            AppInfo {
                app,
                windows,
                error: None,
            }
        }
        Err(e) => AppInfo {
            app,
            windows: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}

async fn pid_of(bus: &Bus, bus_name: &str) -> Option<u32> {
    let target = Target {
        doing: "asking the pid of",
        who: bus_name,
    };
    bus.call(
        &target,
        dbus::NAME,
        dbus::PATH,
        dbus::GET_CONNECTION_UNIX_PROCESS_ID,
        &(bus_name.to_owned(),),
    )
    .await
    .ok()
}

async fn windows(
    bus: &Bus,
    target: &Target<'_>,
    bus_name: &str,
) -> Result<(String, Vec<WindowInfo>)> {
    let name = bus
        .property(target, bus_name, ROOT_PATH, accessible::NAME)
        .await?;
    let name = String::try_from(name).unwrap_or_default();
    let app = AppRef {
        name: name.clone(),
        pid: None,
        bus_name: bus_name.to_owned(),
    };
    let (children, profile) = futures_util::join!(
        bus.call(target, bus_name, ROOT_PATH, accessible::GET_CHILDREN, &()),
        bus.profile(&app)
    );
    let children: Vec<ObjRef> = children?;
    let details = join_all(
        children
            .iter()
            .map(|(dest, path)| window(bus, target, &profile, dest, path)),
    )
    .await;
    let mut out = Vec::new();
    for d in details {
        match d {
            Ok(Some(w)) => out.push(w),
            Ok(None) => {} // off the screen
            Err(e @ (Error::Timeout { .. } | Error::Gone { .. })) => return Err(e),
            Err(_) => {} // a window closing while we look
        }
    }
    Ok((name, out))
}

/// One top-level window of an application; `None` for one that lies wholly
/// off the screen, above or left of it: a helper window no one sees, which
/// is no window of the application's (xfwm4, a window manager, keeps a
/// 5 × 5 GTK window at -1000,-1000 that says it is active, and was taken
/// for the window the focus went to whenever a dialog opened).
async fn window(
    bus: &Bus,
    target: &Target<'_>,
    profile: &Profile,
    dest: &str,
    path: &OwnedObjectPath,
) -> Result<Option<WindowInfo>> {
    // `Get`, not `GetAll`: Qt 5.15 crashes on `GetAll` of this interface.
    let name = bus.property(target, dest, path.as_str(), accessible::NAME);
    let role = bus.call(target, dest, path.as_str(), accessible::GET_ROLE, &());
    let states = bus.call(target, dest, path.as_str(), accessible::GET_STATE, &());
    let extents = bus.call(
        target,
        dest,
        path.as_str(),
        component::GET_EXTENTS,
        &(0u32,),
    );
    let (name, role, states, extents) = futures_util::join!(name, role, states, extents);
    // A window that does not say where it is (no `Component`) is listed.
    if extents.is_ok_and(|(x, y, w, h)| off_screen(x, y, w, h)) {
        return Ok(None);
    }
    let states = state::states(&states?);
    let title = String::try_from(name?).unwrap_or_default();
    let raw = state::role_name(role?);
    // As the tree names it: Qt 5's plain top-level widget is a `filler`.
    let role = match crate::capture::as_window(uidelta_model::Role::from_name(&raw)) {
        uidelta_model::Role::Frame => "frame".to_owned(),
        _ => raw,
    };
    Ok(Some(WindowInfo {
        title,
        role,
        path: path.as_str().to_owned(),
        active: states.contains(State::Active),
        showing: profile.window_shows(states),
    }))
}

/// Whether a window at `x`, `y` of size `w` × `h` (screen coordinates, as
/// AT-SPI gives them) lies wholly above or left of the screen, whose places
/// start at 0,0 on X11 (every monitor's included). One that says nothing of
/// where it is (`i32::MIN`, no size) is not: GTK 4 gives its windows'
/// places within themselves, at 0,0.
fn off_screen(x: i32, y: i32, w: i32, h: i32) -> bool {
    x != i32::MIN && w > 0 && h > 0 && (x.saturating_add(w) <= 0 || y.saturating_add(h) <= 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(name: &str, windows: &[bool], error: bool) -> AppInfo {
        AppInfo {
            app: AppRef {
                name: name.into(),
                pid: None,
                bus_name: format!(":1.{}", name.len()),
            },
            windows: windows
                .iter()
                .map(|&showing| WindowInfo {
                    title: name.into(),
                    role: "frame".into(),
                    path: "/w".into(),
                    active: false,
                    showing,
                })
                .collect(),
            error: error.then(|| "timed out".into()),
        }
    }

    #[test]
    fn applications_without_windows_are_listed_last() {
        let mut apps = [
            app("xdg-desktop-portal-gtk", &[], false),
            app("minimized", &[false], false),
            app("mousepad", &[true], false),
            app("hung", &[], true),
            app("ibus-x11", &[], false),
            app("gedit", &[false, true], false),
        ];
        apps.sort_by_key(listing_rank);
        let names: Vec<&str> = apps.iter().map(|a| a.app.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "mousepad",
                "gedit",
                "minimized",
                "hung",
                "xdg-desktop-portal-gtk",
                "ibus-x11"
            ]
        );
    }

    #[test]
    fn a_window_wholly_above_or_left_of_the_screen_is_off_it() {
        // xfwm4's helper window.
        assert!(off_screen(-1000, -1000, 5, 5));
        assert!(off_screen(-300, 40, 300, 200));
        assert!(off_screen(40, -200, 300, 200));
        // Partly on the screen, on it, or saying nothing of its place.
        assert!(!off_screen(-299, 40, 300, 200));
        assert!(!off_screen(0, 0, 800, 600));
        assert!(!off_screen(i32::MIN, i32::MIN, -1, -1));
        assert!(!off_screen(-1000, -1000, 0, 0));
    }
}
