//! Containers too big to read whole: a spreadsheet, a long tree view or
//! list that says `manages-descendants` and holds more children than
//! [`WHOLE_UP_TO`]. An application makes such children on demand, one
//! object per cell asked for, so `GetChildren` on a sheet of 1,048,576 ×
//! 16,384 cells never ends (LibreOffice Calc grows by gigabytes and stops
//! answering). Such a container is read as its visible part: the cells on
//! screen, found through its `Table` (the cells at its top-left and
//! bottom-right corners, then `GetAccessibleAt` for each row and column in
//! between) or, without a table, by asking `GetAccessibleAtPoint` down its
//! height, one row at a time. Its size, and what of it shows, is the
//! container's value (`1048576 rows × 16384 columns; A1 to M39 shown`),
//! so that the tree states it once and a scroll is one changed line.
//!
//! Nothing here asks a container for its children, their count aside, and
//! the calls made are bounded by [`MOST_CELLS`] whatever the container says.

use std::collections::HashSet;

use futures_util::future::join_all;
use zbus::zvariant::OwnedValue;

use crate::bus::{Bus, Target};
use crate::capture::Rec;
use crate::error::Result;
use crate::interfaces::{accessible, component, table, Method, ObjRef, Property};

/// Children up to which a container that manages its descendants is read
/// whole, as any other (a GTK 3 list of a few hundred rows: every row,
/// also those scrolled out of view, is there to find and select).
pub const WHOLE_UP_TO: i32 = 2_000;

/// Most cells read of one container's visible part.
pub const MOST_CELLS: usize = 2_000;

/// How far apart, in pixels, the points are at which a corner cell of a
/// table is looked for, and how many are tried (see [`Reader::cell_near`]).
const CORNER_STEP: i32 = 4;
const CORNER_TRIES: usize = 24;

/// Most rows looked for, one at a time, in a container without a table.
const MOST_PROBED_ROWS: usize = 200;

/// `ATSPI_COORD_TYPE_SCREEN`.
const SCREEN: u32 = 0;

/// What of a huge container was read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Rows and columns it says it has (a table), else its children
    /// as `(children, 1)`.
    pub size: (i64, i64),
    /// Whether it is a table (rows × columns) or a list of children.
    pub table: bool,
    /// First and last row shown (0-based), when found.
    pub rows: Option<(i32, i32)>,
    /// First and last column shown (0-based), when found.
    pub columns: Option<(i32, i32)>,
}

/// Whether a container that manages its descendants and has `count`
/// children is read as its visible part: it has more than [`WHOLE_UP_TO`],
/// or cannot say how many.
pub fn is_huge(count: i32) -> bool {
    !(0..=WHOLE_UP_TO).contains(&count)
}

/// Reads the visible part of the container at `path`, which manages its
/// descendants: the objects on screen, in rows, and what was shown; `None`
/// when it is small enough to be read whole (see [`is_huge`]). Its child
/// count is asked for when `child_count` does not say (AT-SPI's ATK bridge
/// gives `-1` in its cache for every such container). Anything else the
/// application does not answer leaves the part smaller (at worst empty),
/// never an error: the rest of the capture goes on.
pub async fn part(
    bus: &Bus,
    target: &Target<'_>,
    dest: &str,
    path: &str,
    has_table: bool,
    child_count: i32,
    place_by_name: Option<PlaceByName>,
) -> Result<Option<(Vec<ObjRef>, Shown)>> {
    let reader = Reader {
        bus,
        target,
        dest,
        path,
        place_by_name,
    };
    let child_count = if child_count < 0 {
        reader.child_count().await?
    } else {
        child_count
    };
    if !is_huge(child_count) {
        return Ok(None);
    }
    let extents = reader.extents(path).await;
    // GTK places a hidden widget at `i32::MIN`.
    let placed =
        |&(x, y, w, h): &(i32, i32, i32, i32)| x != i32::MIN && y != i32::MIN && w > 0 && h > 0;
    let Some((x, y, w, h)) = extents.ok().filter(placed) else {
        return Ok(Some((Vec::new(), Shown::listed(child_count))));
    };
    if has_table {
        match reader.table_part((x, y, w, h)).await {
            Ok(Some(found)) => return Ok(Some(found)),
            Ok(None) => {}
            Err(e) => tracing::debug!("the cells on screen of {dest}{path}: {e}"),
        }
    }
    let rows = reader.probe_rows((x, y, w, h)).await;
    let shown = Shown {
        rows: rows.1,
        ..Shown::listed(child_count)
    };
    Ok(Some((rows.0, shown)))
}

impl Shown {
    fn listed(child_count: i32) -> Shown {
        Shown {
            size: (i64::from(child_count), 1),
            ..Shown::default()
        }
    }

    /// `1048576 rows × 16384 columns; rows 1-39 and columns 1-13 shown:
    /// A1 to M39`: the size, what shows, and the names of the first and
    /// last cell shown (a spreadsheet's cell addresses), when they have
    /// names.
    pub fn summary(&self, first: Option<&str>, last: Option<&str>) -> String {
        let size = if self.table {
            format!("{} rows × {} columns; ", self.size.0, self.size.1)
        } else if self.size.0 >= 0 {
            format!("{} items; ", self.size.0)
        } else {
            // It cannot say how many.
            String::new()
        };
        let span = |(a, b): (i32, i32)| {
            if a == b {
                format!("{}", i64::from(a) + 1)
            } else {
                format!("{}-{}", i64::from(a) + 1, i64::from(b) + 1)
            }
        };
        let shown = match (self.rows, self.columns) {
            (Some(r), Some(c)) => format!("rows {} and columns {} shown", span(r), span(c)),
            (Some(r), None) if self.table => format!("rows {} shown", span(r)),
            (Some(r), None) => format!("items {} shown", span(r)),
            (None, _) if first.is_some() => "shown".to_owned(),
            (None, _) => "none read".to_owned(),
        };
        let names = match (first, last) {
            (Some(f), Some(l)) if !f.is_empty() && !l.is_empty() => format!(": {f} to {l}"),
            _ => String::new(),
        };
        format!("{size}{shown}{names}")
    }
}

/// A toolkit's reading of a cell's row and column from its name, for
/// cells whose index may not say it (see [`crate::Profile::cell_place`]).
pub type PlaceByName = fn(&str) -> Option<(i32, i32)>;

/// Calls about one container.
struct Reader<'a> {
    bus: &'a Bus,
    target: &'a Target<'a>,
    dest: &'a str,
    path: &'a str,
    place_by_name: Option<PlaceByName>,
}

impl Reader<'_> {
    async fn call<A, R>(&self, path: &str, method: Method<A, R>, args: &A) -> Result<R>
    where
        A: serde::Serialize + zbus::zvariant::DynamicType,
        R: serde::de::DeserializeOwned + zbus::zvariant::Type,
    {
        self.bus
            .call(self.target, self.dest, path, method, args)
            .await
    }

    async fn property(&self, property: Property) -> Result<OwnedValue> {
        self.bus
            .property(self.target, self.dest, self.path, property)
            .await
    }

    async fn extents(&self, path: &str) -> Result<(i32, i32, i32, i32)> {
        self.call(path, component::GET_EXTENTS, &(SCREEN,)).await
    }

    /// The container's child count as it says it now; `-1` when it
    /// does not say.
    async fn child_count(&self) -> Result<i32> {
        let v = self.property(accessible::CHILD_COUNT).await?;
        Ok(i32::try_from(v).unwrap_or(-1))
    }

    async fn table_count(&self, property: Property) -> Result<i32> {
        let v = self.property(property).await?;
        Ok(i32::try_from(v).unwrap_or(0))
    }

    /// The object on screen at `(x, y)` inside the container, `None` for
    /// none (a null reference).
    async fn at_point(&self, x: i32, y: i32) -> Result<Option<ObjRef>> {
        let found: ObjRef = self
            .call(
                self.path,
                component::GET_ACCESSIBLE_AT_POINT,
                &(x, y, SCREEN),
            )
            .await?;
        Ok((found.1.as_str() != "/org/a11y/atspi/null").then_some(found))
    }

    /// Row and column of the cell at `(x, y)`, else of the first found
    /// going `step` pixels at a time from there (down, or up when
    /// negative) for up to [`CORNER_TRIES`] tries: past a table's column
    /// headers, where GTK 3 finds nothing, or the empty place below its
    /// last row.
    async fn cell_near(&self, x: i32, y: i32, step: i32) -> Result<Option<(i32, i32)>> {
        let mut at = y;
        for _ in 0..CORNER_TRIES {
            if let Some(cell) = self.at_point(x, at).await? {
                if let Some(place) = self.cell_place(&cell).await? {
                    return Ok(Some(place));
                }
            }
            at = at.saturating_add(step);
        }
        Ok(None)
    }

    /// Row and column of a cell of the table.
    async fn cell_place(&self, cell: &ObjRef) -> Result<Option<(i32, i32)>> {
        if cell.0 != self.dest {
            return Ok(None);
        }
        // Where the toolkit names cells by their place, the name says it
        // (Calc's cells answer `-1` or `0` for their index while a formula
        // is written).
        if let Some(by_name) = self.place_by_name {
            let name = self
                .bus
                .property(self.target, self.dest, cell.1.as_str(), accessible::NAME)
                .await?;
            if let Some(place) = String::try_from(name).ok().and_then(|n| by_name(&n)) {
                return Ok(Some(place));
            }
        }
        let index: i32 = self
            .call(cell.1.as_str(), accessible::GET_INDEX_IN_PARENT, &())
            .await?;
        if index < 0 {
            return Ok(None);
        }
        let at = (index,);
        let row = self.call(self.path, table::GET_ROW_AT_INDEX, &at);
        let column = self.call(self.path, table::GET_COLUMN_AT_INDEX, &at);
        let (row, column) = futures_util::join!(row, column);
        let (row, column) = (row?, column?);
        Ok((row >= 0 && column >= 0).then_some((row, column)))
    }

    /// The cells on screen of a table: those between the cells at its
    /// top-left and bottom-right corners. `None` when the corners are not
    /// cells of it (a header there, or nothing).
    async fn table_part(
        &self,
        (x, y, w, h): (i32, i32, i32, i32),
    ) -> Result<Option<(Vec<ObjRef>, Shown)>> {
        let (left, right) = (x.saturating_add(1), x.saturating_add(w).saturating_sub(2));
        let (top, bottom) = (y.saturating_add(1), y.saturating_add(h).saturating_sub(2));
        let (rows, columns, first, last) = futures_util::join!(
            self.table_count(table::N_ROWS),
            self.table_count(table::N_COLUMNS),
            self.cell_near(left, top, CORNER_STEP),
            self.cell_near(right, bottom, -CORNER_STEP),
        );
        let (rows, columns) = (rows?, columns?);
        let (Some((r0, c0)), Some((r1, c1))) = (first?, last?) else {
            return Ok(None);
        };
        if r1 < r0 || c1 < c0 {
            return Ok(None);
        }
        let width = usize::try_from(i64::from(c1) - i64::from(c0) + 1)
            .unwrap_or(1)
            .max(1);
        let most_rows = i32::try_from((MOST_CELLS / width).max(1)).unwrap_or(1);
        let r1 = r1.min(r0.saturating_add(most_rows - 1));
        let c1 = c1.min(c0.saturating_add(i32::try_from(MOST_CELLS).unwrap_or(i32::MAX) - 1));
        let places: Vec<(i32, i32)> = (r0..=r1)
            .flat_map(|r| (c0..=c1).map(move |c| (r, c)))
            .collect();
        let cells = join_all(
            places
                .iter()
                .map(|place| self.call(self.path, table::GET_ACCESSIBLE_AT, place)),
        )
        .await;
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(cells.len());
        for cell in cells {
            // A cell that spans several places is one cell.
            let cell = cell?;
            if cell.1.as_str() != "/org/a11y/atspi/null" && seen.insert(cell.clone()) {
                out.push(cell);
            }
        }
        let shown = Shown {
            size: (i64::from(rows), i64::from(columns)),
            table: true,
            rows: Some((r0, r1)),
            columns: Some((c0, c1)),
        };
        Ok(Some((out, shown)))
    }

    /// The rows on screen of a container without a table: what is at its
    /// left edge, from its top down, each row found below the last. Stops
    /// at its bottom, at a gap, or when the same row answers twice.
    async fn probe_rows(
        &self,
        (x, y, w, h): (i32, i32, i32, i32),
    ) -> (Vec<ObjRef>, Option<(i32, i32)>) {
        let mut out: Vec<ObjRef> = Vec::new();
        let mut first_index = None;
        let probe_x = x.saturating_add((w / 2).min(8));
        let bottom = y.saturating_add(h);
        let mut at = y.saturating_add(1);
        while at < bottom && out.len() < MOST_PROBED_ROWS {
            let Ok(Some(row)) = self.at_point(probe_x, at).await else {
                break;
            };
            if row.0 != self.dest || out.contains(&row) {
                break;
            }
            let Ok((_, ry, _, rh)) = self.extents(row.1.as_str()).await else {
                break;
            };
            if first_index.is_none() {
                first_index = self
                    .call(row.1.as_str(), accessible::GET_INDEX_IN_PARENT, &())
                    .await
                    .ok();
            }
            out.push(row);
            let next = ry.saturating_add(rh);
            if rh <= 0 || next <= at {
                break;
            }
            at = next.saturating_add(1);
        }
        let rows = first_index.filter(|&i| i >= 0 && !out.is_empty()).map(|i| {
            (
                i,
                i.saturating_add(i32::try_from(out.len()).unwrap_or(1) - 1),
            )
        });
        (out, rows)
    }
}

/// Gives each huge container read by its visible part its summary as its
/// value (see [`Shown::summary`]), named by its first and last cell read.
/// Whether there was any.
pub fn state_sizes(recs: &mut [Rec]) -> bool {
    let mut any = false;
    for i in 0..recs.len() {
        let Some(shown) = recs[i].shown.clone() else {
            continue;
        };
        let name = |c: Option<&usize>| c.map(|&c| recs[c].basic.name.as_str());
        let cells = &recs[i].children;
        let summary = shown.summary(name(cells.first()), name(cells.last()));
        recs[i].value = Some(summary);
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_container_has_more_children_than_are_read_whole() {
        assert!(is_huge(i32::MAX));
        assert!(is_huge(WHOLE_UP_TO + 1));
        assert!(!is_huge(WHOLE_UP_TO));
        assert!(!is_huge(300));
        assert!(is_huge(-1));
    }

    #[test]
    fn the_summary_states_the_size_and_what_shows() {
        let sheet = Shown {
            size: (1_048_576, 16_384),
            table: true,
            rows: Some((0, 38)),
            columns: Some((0, 12)),
        };
        assert_eq!(
            sheet.summary(Some("A1"), Some("M39")),
            "1048576 rows × 16384 columns; rows 1-39 and columns 1-13 shown: A1 to M39"
        );
        assert_eq!(
            sheet.summary(Some(""), None),
            "1048576 rows × 16384 columns; rows 1-39 and columns 1-13 shown"
        );
        let list = Shown {
            rows: Some((4, 4)),
            ..Shown::listed(5000)
        };
        assert_eq!(list.summary(None, None), "5000 items; items 5 shown");
        assert_eq!(
            Shown::listed(5000).summary(None, None),
            "5000 items; none read"
        );
        assert_eq!(
            Shown::listed(-1).summary(Some("General"), Some("-1235")),
            "shown: General to -1235"
        );
    }
}
