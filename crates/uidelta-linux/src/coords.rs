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
/// (window coordinates: the content then sits within the border).
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
            (extents.x == 0 && extents.y == 0).then_some(Mapping {
                scale,
                dx: x + (border.0 / 2.0).max(0.0),
                dy: y + (border.1 / 2.0).max(0.0),
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
    for (top, m) in found {
        let Some(m) = m.or(shared).filter(|m| *m != Mapping::SAME) else {
            continue;
        };
        for id in tree.subtree(top) {
            let node = tree.node_mut(id);
            node.bounds = node.bounds.map(|b| m.rect(b));
        }
        mapped += 1;
    }
    Placed {
        mapped,
        display_places: in_place && mapped == 0,
    }
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
