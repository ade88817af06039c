//! How a toolkit's coordinates map to the display's: each top-level
//! window's mapping is read from its X window, and captures are put in
//! the display's places.

use uidelta_model::{NodeId, Rect, Role, Tree};
use uidelta_x11::TopWindow;

/// How far a window's inside may reach past an element's window (in
/// pixels, each side) for the two to be the same window: client-side
/// decorations draw their shadow inside the window, outside the extents
/// toolkits report.
pub(crate) const SHADOW: i32 = 64;

/// Extents as AT-SPI gives them, `None` for none (toolkits answer
/// `i32::MIN` or an empty size).
pub(crate) fn rect_of((x, y, w, h): (i32, i32, i32, i32)) -> Option<Rect> {
    (x != i32::MIN && w > 0 && h > 0).then_some(Rect::new(x, y, w, h))
}

/// How a toolkit's coordinates map to the display's: display = offset +
/// reported × scale. Toolkits on a scaled display (GTK 3 with
/// `GDK_SCALE=2`, Qt 5 with `QT_SCALE_FACTOR=2`) report unscaled pixels;
/// GTK 4 reports places within its window, as if the window were at 0,0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mapping {
    pub(crate) scale: f64,
    pub(crate) dx: f64,
    pub(crate) dy: f64,
}

impl Mapping {
    /// Reported places are the display's.
    pub(crate) const SAME: Mapping = Mapping {
        scale: 1.0,
        dx: 0.0,
        dy: 0.0,
    };

    pub(crate) fn point(&self, (x, y): (i32, i32)) -> (i32, i32) {
        (
            (self.dx + f64::from(x) * self.scale).round() as i32,
            (self.dy + f64::from(y) * self.scale).round() as i32,
        )
    }

    pub(crate) fn rect(&self, r: Rect) -> Rect {
        if *self == Mapping::SAME {
            return r;
        }
        let (x, y) = self.point((r.x, r.y));
        let size = |v: i32| (f64::from(v) * self.scale).round() as i32;
        Rect::new(x, y, size(r.w), size(r.h))
    }
}

/// Scales toolkits are commonly set to.
pub(crate) const SCALES: [f64; 7] = [1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0];

/// The mapping under which a window (`outer`, frame included, or `inner`)
/// is the top-level window whose extents its toolkit reports as `extents`: the
/// same size at some scale, give or take a border of up to [`SHADOW`]
/// pixels each side that the window may draw around its content; and
/// either the same place (screen coordinates, scaled), or reported at 0,0
/// (window coordinates: the content then sits within the border of the
/// application's own window, `inner`, even where the frame is what fits: a
/// frame's border is not even, a title bar on top, and content centred in
/// it showed 17 px above where it does, GTK 4 under mutter, whose menus
/// clicks then missed).
pub(crate) fn mapping_between(
    extents: Rect,
    outer: uidelta_x11::Area,
    inner: uidelta_x11::Area,
) -> Option<Mapping> {
    [outer, inner].into_iter().find_map(|(x, y, w, h)| {
        let (x, y, w, h) = (f64::from(x), f64::from(y), f64::from(w), f64::from(h));
        let (ew, eh) = (f64::from(extents.w), f64::from(extents.h));
        let exact = w / ew;
        SCALES.into_iter().chain([exact]).find_map(|scale| {
            let slack = 2.0 * scale + 2.0;
            let border = (w - ew * scale, h - eh * scale);
            let fits = |b: f64| (-slack..=2.0 * f64::from(SHADOW) + slack).contains(&b);
            if !fits(border.0) || !fits(border.1) {
                return None;
            }
            let near =
                |reported: i32, real: f64| (f64::from(reported) * scale - real).abs() <= slack;
            if near(extents.x, x) && near(extents.y, y) && border.0.abs() <= slack {
                return Some(Mapping {
                    scale,
                    dx: 0.0,
                    dy: 0.0,
                });
            }
            let (ix, iy, iw, ih) = inner;
            let inside = (f64::from(iw) - ew * scale, f64::from(ih) - eh * scale);
            (extents.x == 0 && extents.y == 0).then_some(Mapping {
                scale,
                dx: f64::from(ix) + (inside.0 / 2.0).max(0.0),
                dy: f64::from(iy) + (inside.1 / 2.0).max(0.0),
            })
        })
    })
}

/// How the toolkit's coordinates of a top-level window reported at
/// `extents`, named `name`, of the process `pid` map to the display's: read
/// from the shown window of that process that fits it (see
/// [`mapping_between`]), the one titled `name` when there are several.
/// `None` when none fits, or several do and none has that title.
pub(crate) fn window_mapping(
    windows: &[TopWindow],
    pid: Option<u32>,
    extents: Rect,
    name: &str,
) -> Option<Mapping> {
    let fitting: Vec<(&TopWindow, Mapping)> = windows
        .iter()
        .filter(|w| w.viewable && !w.override_redirect)
        .filter(|w| w.pid.is_none() || pid.is_none() || w.pid == pid)
        .filter_map(|w| mapping_between(extents, w.outer, w.inner).map(|m| (w, m)))
        .collect();
    match fitting
        .iter()
        .find(|(w, _)| !name.is_empty() && w.title == name)
    {
        Some((_, m)) => Some(*m),
        None => match fitting[..] {
            [(_, m)] => Some(m),
            _ => None,
        },
    }
}

/// Puts the bounds of `tree`, a capture of the process `pid`, in the
/// display's coordinates where its toolkit reports others (see [`Mapping`]):
/// each top-level window that one of `windows` fits is mapped with its
/// subtree. A top-level that none fits (a popup menu, which has no managed
/// window) takes the scale the others share when they are in the display's
/// places at a scale (GTK 3 or Qt 5 on a scaled display), and is left as it
/// is otherwise (GTK 4's popovers).
pub(crate) fn place_on_display(tree: &mut Tree, windows: &[TopWindow], pid: Option<u32>) -> Placed {
    let root = tree.root();
    let tops: Vec<NodeId> = if tree.node(root).role == Role::Application {
        tree.children(root).to_vec()
    } else {
        vec![root]
    };
    let found: Vec<(NodeId, Option<Mapping>)> = tops
        .iter()
        .map(|&top| {
            let node = tree.node(top);
            let m = node
                .bounds
                .filter(|b| b.w > 0 && b.h > 0)
                .and_then(|b| window_mapping(windows, pid, b, &node.name));
            (top, m)
        })
        .collect();
    let scales: Vec<f64> = found
        .iter()
        .filter_map(|(_, m)| *m)
        .filter(|m| m.dx == 0.0 && m.dy == 0.0)
        .map(|m| m.scale)
        .collect();
    let shared = match scales.split_first() {
        Some((&first, rest)) if first != 1.0 && rest.iter().all(|&s| s == first) => Some(Mapping {
            scale: first,
            dx: 0.0,
            dy: 0.0,
        }),
        _ => None,
    };
    // Found in place away from the display's corner, where a toolkit that
    // reports places within the window (GTK 4) would report 0,0.
    let in_place = found.iter().any(|&(top, m)| {
        m == Some(Mapping::SAME) && tree.node(top).bounds.is_some_and(|b| (b.x, b.y) != (0, 0))
    });
    let mut mapped = 0;
    let mut popups: Vec<&TopWindow> = windows
        .iter()
        .filter(|w| w.viewable && w.override_redirect)
        .filter(|w| w.pid.is_none() || pid.is_none() || w.pid == pid)
        .collect();
    for (top, m) in found {
        let Some(m) = m.or(shared).filter(|m| *m != Mapping::SAME) else {
            continue;
        };
        for id in tree.subtree(top) {
            let node = tree.node_mut(id);
            node.bounds = node.bounds.map(|b| m.rect(b));
        }
        // Places within the window: what it opens in windows of its own is
        // placed as if in it.
        if m.dx != 0.0 || m.dy != 0.0 {
            place_popovers(tree, top, &mut popups);
        }
        mapped += 1;
    }
    Placed {
        mapped,
        display_places: in_place && mapped == 0,
    }
}

/// Puts in their windows the popovers under `top`, a top-level window
/// whose toolkit reports places within it (GTK 4): it gives a popover,
/// drawn in a window of its own (override-redirect, one of `popups`), a
/// place of its own making in the top-level's coordinates, some way from
/// where it shows (gnome-calculator's drop-down list 23 px left and 13 px
/// up of it, its mode menu 82 px right: a click on an item landed beside
/// the popover, which closed with nothing chosen). Each popover (see
/// [`popover_shift`]) moves with its subtree; its window is taken from
/// `popups`.
fn place_popovers(tree: &mut Tree, top: NodeId, popups: &mut Vec<&TopWindow>) {
    let mut stack: Vec<NodeId> = tree.children(top).iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        if popups.is_empty() {
            return;
        }
        let node = tree.node(id);
        let parent = tree.parent(id).map(|p| tree.node(p));
        let held_by = parent.map(|p| (p.role, p.bounds));
        let shift = node.bounds.zip(held_by).and_then(|(b, (role, held))| {
            popover_shift(node.role, b, role, held?, popups.iter().map(|w| w.outer))
        });
        let Some((i, (dx, dy))) = shift else {
            stack.extend(tree.children(id).iter().rev());
            continue;
        };
        popups.remove(i);
        for below in tree.subtree(id) {
            let node = tree.node_mut(below);
            node.bounds = node.bounds.map(|r| shifted(r, (dx, dy)));
        }
    }
}

/// `r` moved by `(dx, dy)`.
pub(crate) fn shifted(r: Rect, (dx, dy): (i32, i32)) -> Rect {
    Rect::new(r.x.saturating_add(dx), r.y.saturating_add(dy), r.w, r.h)
}

/// Whether an element of `role` at `bounds`, held by one of
/// `parent_role` at `held` (both in the display's places as its
/// top-level's mapping gives them), is a popover drawn in one of the
/// windows at `popups`, and if so which one and how far it moves to sit
/// at its middle. A popover is a menu or window, or what is held by an
/// element that opens popovers (see [`opens_popovers`]: a drop-down's
/// list in a scroll pane); it lies outside what holds it, and has the
/// size of its window, give or take the border the window draws around
/// it ([`SHADOW`] each side).
pub(crate) fn popover_shift(
    role: Role,
    bounds: Rect,
    parent_role: Role,
    held: Rect,
    popups: impl IntoIterator<Item = uidelta_x11::Area>,
) -> Option<(usize, (i32, i32))> {
    let opens = role.is_window()
        || matches!(role, Role::Menu | Role::PopupMenu)
        || opens_popovers(parent_role);
    if !opens || bounds.w <= 0 || bounds.h <= 0 || bounds.intersection(&held) == Some(bounds) {
        return None;
    }
    let border = |outer: u32, inner: i32| i64::from(outer) - i64::from(inner);
    let fits = |b: i64| (0..=2 * i64::from(SHADOW)).contains(&b);
    popups
        .into_iter()
        .enumerate()
        .find_map(|(i, (x, y, w, h))| {
            let (bw, bh) = (border(w, bounds.w), border(h, bounds.h));
            if !fits(bw) || !fits(bh) {
                return None;
            }
            let dx = i32::try_from(i64::from(x) + bw / 2 - i64::from(bounds.x)).ok()?;
            let dy = i32::try_from(i64::from(y) + bh / 2 - i64::from(bounds.y)).ok()?;
            Some((i, (dx, dy)))
        })
}

/// Whether an element of `role` opens popovers that hold whatever the
/// toolkit puts in them (a drop-down's list in a scroll pane): combo
/// boxes, buttons and menu items.
fn opens_popovers(role: Role) -> bool {
    matches!(
        role,
        Role::ComboBox | Role::PushButton | Role::ToggleButton | Role::MenuItem
    )
}

/// What [`place_on_display`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Placed {
    /// Top-level windows whose subtrees were mapped.
    pub(crate) mapped: usize,
    /// Whether the capture shows its toolkit reporting the display's
    /// places: nothing needed mapping, and a top-level away from the
    /// display's corner was found where its window is. Its later captures
    /// need no mapping: a toolkit's scale and way of reporting do not
    /// change while it runs.
    pub(crate) display_places: bool,
}

#[cfg(test)]
mod tests;
