//! The application generator: a window shaped like a GTK file manager or
//! editor, whose list and tree grow to the requested size.
//!
//! Parts are built as owned fragments first and written to a
//! [`TreeBuilder`] at the end, so that the fixed chrome can be counted
//! before the rows are sized to make up the rest of the budget.

use std::collections::HashSet;

use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, StateSet, Tree, TreeBuilder};

use crate::rng::Rng;
use crate::words;

mod form;
use form::form;

/// Height of a list or tree row, in pixels.
pub(crate) const ROW: i32 = 24;

/// A node with its children, before it is written to a tree.
#[derive(Clone, Debug)]
pub(crate) struct Frag {
    pub(crate) node: NodeData,
    pub(crate) children: Vec<Frag>,
}

impl Frag {
    fn leaf(node: NodeData) -> Frag {
        Frag {
            node,
            children: Vec::new(),
        }
    }

    fn with(node: NodeData, children: Vec<Frag>) -> Frag {
        Frag { node, children }
    }

    pub(crate) fn len(&self) -> usize {
        1 + self.children.iter().map(Frag::len).sum::<usize>()
    }

    /// Gives the first node of `role` (preorder) the `focused` state.
    fn focus_first(&mut self, role: Role) -> bool {
        if self.node.role == role {
            self.node.states.insert(State::Focused);
            return true;
        }
        self.children.iter_mut().any(|c| c.focus_first(role))
    }

    /// Writes the children under the builder's current node.
    pub(crate) fn write_children(self, builder: &mut TreeBuilder) {
        for child in self.children {
            child.write(builder);
        }
    }

    /// Writes this fragment under the builder's current node.
    pub(crate) fn write(self, builder: &mut TreeBuilder) {
        if self.children.is_empty() {
            builder.leaf(self.node);
        } else {
            builder.open(self.node);
            for child in self.children {
                child.write(builder);
            }
            builder.close();
        }
    }
}

/// What every live AT-SPI element reports, plus `showing` when on screen.
fn states(showing: bool, extra: &[State]) -> StateSet {
    let mut s = StateSet::of(&[State::Enabled, State::Sensitive, State::Visible]);
    s.set(State::Showing, showing);
    for &state in extra {
        s.insert(state);
    }
    s
}

/// States of an element on a hidden notebook page: neither visible nor showing.
fn hidden(extra: &[State]) -> StateSet {
    let mut s = StateSet::of(&[State::Enabled, State::Sensitive]);
    for &state in extra {
        s.insert(state);
    }
    s
}

fn node(role: Role, name: impl Into<String>, rect: Rect, states: StateSet) -> NodeData {
    NodeData {
        states,
        bounds: Some(rect),
        ..NodeData::named(role, name)
    }
}

fn valued(role: Role, name: &str, value: impl Into<String>, rect: Rect, s: StateSet) -> NodeData {
    NodeData {
        value: Some(value.into()),
        ..node(role, name, rect, s)
    }
}

/// An unnamed layout container, as GTK wraps every box and grid.
fn filler(role: Role, rect: Rect, showing: bool, children: Vec<Frag>) -> Frag {
    Frag::with(node(role, "", rect, states(showing, &[])), children)
}

/// The AT-SPI identity of the `n`th object on bus `:1.<bus>`.
pub(crate) fn identity(bus: u64, n: u64) -> String {
    format!(":1.{bus}/org/a11y/atspi/accessible/{n}")
}

fn file_name(rng: &mut Rng) -> String {
    file(rng).0
}

/// A file name and the type column's text for it.
fn file(rng: &mut Rng) -> (String, &'static str) {
    let adjective = rng.pick(words::ADJECTIVES);
    let noun = rng.pick(words::NOUNS);
    let &(ext, kind) = rng.pick(words::FILE_TYPES);
    let name = if rng.chance(0.6) {
        format!("{adjective}-{noun}-{}.{ext}", rng.range(2, 999))
    } else {
        format!("{adjective}-{noun}.{ext}")
    };
    (name, kind)
}

fn folder_name(rng: &mut Rng) -> String {
    let folder = rng.pick(words::FOLDERS);
    if rng.chance(0.3) {
        (*folder).to_owned()
    } else {
        format!("{folder} {}", rng.range(2, 999))
    }
}

/// Row names handed out so far. A directory never holds two files of one
/// name, so rows never share one either; a diff that matches rows by name
/// then has one right answer, which the benchmarks' ground truth relies on.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names(HashSet<String>);

impl Names {
    /// Every name already in `tree`.
    pub(crate) fn of(tree: &Tree) -> Names {
        Names(tree.nodes().iter().map(|n| n.name.clone()).collect())
    }

    fn claim<T>(&mut self, rng: &mut Rng, make: impl Fn(&mut Rng) -> (String, T)) -> (String, T) {
        let mut last = make(rng);
        for _ in 0..16 {
            if self.0.insert(last.0.clone()) {
                return last;
            }
            last = make(rng);
        }
        for k in 2.. {
            let numbered = format!("{} ({k})", last.0);
            if self.0.insert(numbered.clone()) {
                return (numbered, last.1);
            }
        }
        last
    }

    pub(crate) fn file(&mut self, rng: &mut Rng) -> (String, &'static str) {
        self.claim(rng, file)
    }

    pub(crate) fn folder(&mut self, rng: &mut Rng) -> String {
        self.claim(rng, |rng| (folder_name(rng), ())).0
    }
}

fn file_size(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => format!("{} bytes", rng.range(1, 999)),
        1 => format!("{}.{} kB", rng.range(1, 999), rng.range(0, 9)),
        _ => format!("{}.{} MB", rng.range(1, 99), rng.range(0, 9)),
    }
}

fn modified(rng: &mut Rng) -> String {
    let (h, m) = (rng.range(0, 23), rng.range(0, 59));
    match rng.below(4) {
        0 => format!("Today {h:02}:{m:02}"),
        1 => "Yesterday".to_owned(),
        _ => format!(
            "{} {}, {h:02}:{m:02}",
            rng.pick(words::MONTHS),
            rng.range(1, 28)
        ),
    }
}

/// One row of the file list: a list item and up to four cells (name, size,
/// type, modified). `parts` counts the item itself.
pub(crate) fn list_row(
    rng: &mut Rng,
    names: &mut Names,
    parts: usize,
    rect: Rect,
    showing: bool,
) -> Frag {
    let (name, kind) = names.file(rng);
    let texts = [name.clone(), file_size(rng), kind.to_owned(), modified(rng)];
    let widths = [rect.w * 2 / 5, rect.w / 5, rect.w / 5, rect.w / 5];
    let mut x = rect.x;
    let mut cells = Vec::new();
    for (text, w) in texts.into_iter().zip(widths).take(parts.saturating_sub(1)) {
        let cell = Rect::new(x, rect.y, w, rect.h);
        cells.push(Frag::leaf(node(
            Role::TableCell,
            text,
            cell,
            states(showing, &[]),
        )));
        x += w;
    }
    let item = states(showing, &[State::Selectable, State::Focusable]);
    Frag::with(node(Role::ListItem, name, rect, item), cells)
}

/// A folder row of the side tree without sub-folders: the tree item, then
/// an icon and a label when `parts` allows.
pub(crate) fn tree_row(
    rng: &mut Rng,
    names: &mut Names,
    parts: usize,
    rect: Rect,
    showing: bool,
) -> Frag {
    let name = names.folder(rng);
    let mut children = Vec::new();
    if parts >= 3 {
        let icon = Rect::new(rect.x + 4, rect.y + 4, 16, 16);
        children.push(Frag::leaf(node(Role::Icon, "", icon, states(showing, &[]))));
    }
    if parts >= 2 {
        let label = Rect::new(rect.x + 24, rect.y + 2, (rect.w - 28).max(1), ROW - 4);
        children.push(Frag::leaf(node(
            Role::Label,
            name.clone(),
            label,
            states(showing, &[]),
        )));
    }
    let item = states(showing, &[State::Selectable, State::Focusable]);
    Frag::with(node(Role::TreeItem, name, rect, item), children)
}

/// Rows that are scrolled into view are `showing`; the others are not.
#[derive(Clone, Copy)]
struct Viewport {
    top: i32,
    bottom: i32,
}

impl Viewport {
    fn shows(self, y: i32) -> bool {
        y < self.bottom && y + ROW > self.top
    }
}

/// Folder rows, some expanded, making exactly `budget` nodes.
#[allow(clippy::too_many_arguments)]
fn tree_rows(
    rng: &mut Rng,
    names: &mut Names,
    budget: usize,
    depth: usize,
    x: i32,
    width: i32,
    y: &mut i32,
    view: Viewport,
) -> Vec<Frag> {
    let mut rows = Vec::new();
    let mut left = budget;
    while left > 0 {
        let parts = left.min(3);
        left -= parts;
        let top = *y;
        *y += ROW;
        let expand = parts == 3 && left > 0 && depth < 3 && rng.chance(0.3);
        let sub = if expand {
            let share = left.min(rng.range(4, 40) as usize);
            left -= share;
            tree_rows(rng, names, share, depth + 1, x + 16, width - 16, y, view)
        } else {
            Vec::new()
        };
        let rect = Rect::new(x, top, width, ROW);
        let mut row = tree_row(rng, names, parts, rect, view.shows(top));
        if let Some(b) = row.node.bounds.as_mut() {
            b.h = *y - top; // an expanded folder spans its sub-folders, like a nested <ul>
        }
        if expand || rng.chance(0.2) {
            row.node.states.insert(State::Expandable);
        }
        if expand {
            row.node.states.insert(State::Expanded);
        }
        row.children.extend(sub);
        rows.push(row);
    }
    rows
}

/// File rows making exactly `budget` nodes; the last one may have fewer cells.
fn list_rows(
    rng: &mut Rng,
    names: &mut Names,
    budget: usize,
    area: Rect,
    view: Viewport,
) -> Vec<Frag> {
    let mut rows = Vec::new();
    let mut left = budget;
    let mut y = area.y;
    while left > 0 {
        let parts = left.min(5);
        left -= parts;
        let rect = Rect::new(area.x, y, area.w, ROW);
        rows.push(list_row(rng, names, parts, rect, view.shows(y)));
        y += ROW;
    }
    rows
}

fn scroll_bar(rect: Rect, vertical: bool, value: &str) -> Frag {
    let orientation = if vertical {
        State::Vertical
    } else {
        State::Horizontal
    };
    let thumb = if vertical {
        Rect::new(rect.x, rect.y, rect.w, (rect.h / 5).max(8))
    } else {
        Rect::new(rect.x, rect.y, (rect.w / 5).max(8), rect.h)
    };
    let indicator = valued(Role::ValueIndicator, "", value, thumb, states(true, &[]));
    Frag::with(
        valued(
            Role::ScrollBar,
            "",
            value,
            rect,
            states(true, &[orientation]),
        ),
        vec![Frag::leaf(indicator)],
    )
}

fn scaled(n: i64, scale: f64, min: usize) -> usize {
    ((n as f64 * scale).round() as usize).max(min)
}

fn menu_bar(rng: &mut Rng, rect: Rect, scale: f64) -> Frag {
    let choice = [0, 1, 2, 3 + rng.below(2), 5, 6];
    let count = if scale >= 1.0 {
        choice.len()
    } else {
        scaled(6, scale, 1)
    };
    let mut menus = Vec::new();
    for (i, &which) in choice.iter().take(count).enumerate() {
        let (title, entries) = words::MENUS[which];
        let menu_rect = Rect::new(rect.x + 6 + 70 * i as i32, rect.y, 64, rect.h);
        let want = scaled(rng.range(8, 15), scale, 2).min(entries.len());
        let mut y = rect.y + rect.h;
        let mut items = Vec::new();
        for entry in entries.iter().take(want) {
            let item = menu_entry(rng, entry, menu_rect.x, &mut y);
            items.push(Frag::leaf(item));
        }
        let menu = states(true, &[State::Selectable]);
        menus.push(Frag::with(node(Role::Menu, title, menu_rect, menu), items));
    }
    let bar = states(true, &[State::Horizontal]);
    Frag::with(node(Role::MenuBar, "", rect, bar), menus)
}

/// One entry of a closed menu: laid out where the popup would open, not showing.
fn menu_entry(rng: &mut Rng, entry: &str, x: i32, y: &mut i32) -> NodeData {
    let top = *y;
    if entry == "-" {
        *y += 9;
        return node(
            Role::Separator,
            "",
            Rect::new(x, top, 240, 9),
            states(false, &[]),
        );
    }
    *y += 26;
    let rect = Rect::new(x, top, 240, 26);
    let (role, label, checked) = if let Some(rest) = entry.strip_prefix("[x]") {
        (Role::CheckMenuItem, rest, Some(true))
    } else if let Some(rest) = entry.strip_prefix("[ ]") {
        (Role::CheckMenuItem, rest, Some(false))
    } else if let Some(rest) = entry.strip_prefix("(o)") {
        (Role::RadioMenuItem, rest, Some(true))
    } else if let Some(rest) = entry.strip_prefix("( )") {
        (Role::RadioMenuItem, rest, Some(false))
    } else {
        (Role::MenuItem, entry, None)
    };
    let mut s = states(false, &[State::Selectable]);
    if let Some(on) = checked {
        s.insert(State::Checkable);
        s.set(State::Checked, on);
    }
    if rng.chance(0.08) {
        s.remove(State::Enabled);
        s.remove(State::Sensitive);
    }
    node(role, label, rect, s)
}

fn tool_bar(rng: &mut Rng, rect: Rect, scale: f64) -> Frag {
    let want = scaled(rng.range(10, 16), scale, 2);
    let mut chosen: Vec<&str> = words::TOOLS.to_vec();
    while chosen.len() > want {
        chosen.remove(rng.below(chosen.len()));
    }
    let mut children = Vec::new();
    let mut x = rect.x + 4;
    for (i, tool) in chosen.iter().enumerate() {
        if i > 0 && i % 5 == 0 {
            let sep = Rect::new(x, rect.y + 4, 6, rect.h - 8);
            children.push(Frag::leaf(node(
                Role::Separator,
                "",
                sep,
                states(true, &[]),
            )));
            x += 8;
        }
        let r = Rect::new(x, rect.y + 4, 36, rect.h - 8);
        x += 40;
        let n = if let Some(name) = tool.strip_prefix('*') {
            let mut s = states(true, &[State::Focusable, State::Checkable]);
            s.set(State::Checked, rng.chance(0.3));
            node(Role::ToggleButton, name, r, s)
        } else {
            node(
                Role::PushButton,
                *tool,
                r,
                states(true, &[State::Focusable]),
            )
        };
        children.push(Frag::leaf(n));
    }
    let search = Rect::new(rect.x + rect.w - 244, rect.y + 6, 240, rect.h - 12);
    let mut entry = valued(
        Role::Entry,
        "Search",
        "",
        search,
        states(true, &entry_states()),
    );
    entry.set_attribute("placeholder-text", "Search files…");
    children.push(Frag::leaf(entry));
    Frag::with(
        node(Role::ToolBar, "", rect, states(true, &[State::Horizontal])),
        children,
    )
}

fn entry_states() -> [State; 4] {
    [
        State::Focusable,
        State::Editable,
        State::SingleLine,
        State::SelectableText,
    ]
}

fn status_bar(rng: &mut Rng, rect: Rect) -> Frag {
    let text = *rng.pick(words::STATUS);
    let mut progress = valued(
        Role::ProgressBar,
        "Progress",
        rng.range(0, 100).to_string(),
        Rect::new(rect.x + rect.w - 160, rect.y + 6, 150, rect.h - 12),
        states(true, &[]),
    );
    progress.set_attribute("max", "100");
    let label = |x: i32, w: i32, name: &str| {
        let r = Rect::new(rect.x + x, rect.y + 3, w, rect.h - 6);
        Frag::leaf(node(Role::Label, name, r, states(true, &[])))
    };
    Frag::with(
        node(Role::StatusBar, "", rect, states(true, &[])),
        vec![
            label(8, 200, text),
            label(216, 200, "0 items"),
            label(424, 120, "Ln 1, Col 1"),
            Frag::leaf(progress),
        ],
    )
}

/// Everything that does not scale with size, plus where the rows go.
#[derive(Clone)]
struct Chrome {
    frame: NodeData,
    menu_bar: Frag,
    tool_bar: Frag,
    form: Frag,
    status_bar: Frag,
    body: Rect,
    left: Rect,
    list_area: Rect,
}

impl Chrome {
    fn assemble(self, tree_rows: Vec<Frag>, list_rows: Vec<Frag>) -> Frag {
        let Chrome {
            frame,
            menu_bar,
            tool_bar,
            form,
            status_bar,
            body,
            left,
            list_area,
        } = self;
        let win = frame.bounds.unwrap_or_default();
        let bar = 12;

        let tree_height = tree_rows
            .iter()
            .filter_map(|r| r.node.bounds)
            .map(|b| b.h)
            .sum::<i32>();
        let tree_rect = Rect::new(left.x, left.y, left.w - bar, tree_height.max(left.h));
        let tree = Frag::with(
            node(
                Role::Tree,
                "",
                tree_rect,
                states(true, &[State::Focusable, State::ManagesDescendants]),
            ),
            tree_rows,
        );
        let left_scroll = filler(
            Role::ScrollPane,
            left,
            true,
            vec![
                tree,
                scroll_bar(
                    Rect::new(left.x + left.w - bar, left.y, bar, left.h),
                    true,
                    "0",
                ),
            ],
        );

        let header = Rect::new(list_area.x, list_area.y, list_area.w, 28);
        let columns = ["Name", "Size", "Type", "Modified"];
        let widths = [header.w * 2 / 5, header.w / 5, header.w / 5, header.w / 5];
        let mut x = header.x;
        let mut heads = Vec::new();
        for (name, w) in columns.iter().zip(widths) {
            let r = Rect::new(x, header.y, w, header.h);
            heads.push(Frag::leaf(node(
                Role::PushButton,
                *name,
                r,
                states(true, &[State::Focusable]),
            )));
            x += w;
        }
        let scroll = Rect::new(
            list_area.x,
            header.y + header.h,
            list_area.w,
            list_area.h - header.h,
        );
        let list_height = ROW * list_rows.len() as i32;
        let list_rect = Rect::new(
            scroll.x,
            scroll.y,
            scroll.w - bar,
            list_height.max(scroll.h - bar),
        );
        let list = Frag::with(
            node(
                Role::List,
                "",
                list_rect,
                states(
                    true,
                    &[
                        State::Focusable,
                        State::ManagesDescendants,
                        State::Multiselectable,
                    ],
                ),
            ),
            list_rows,
        );
        let right_scroll = filler(
            Role::ScrollPane,
            scroll,
            true,
            vec![
                list,
                scroll_bar(
                    Rect::new(scroll.x + scroll.w - bar, scroll.y, bar, scroll.h - bar),
                    true,
                    "0",
                ),
                scroll_bar(
                    Rect::new(scroll.x, scroll.y + scroll.h - bar, scroll.w - bar, bar),
                    false,
                    "0",
                ),
            ],
        );
        let right_rect = Rect::new(list_area.x, body.y, list_area.w, body.h);
        let right = filler(
            Role::Filler,
            right_rect,
            true,
            vec![
                filler(
                    Role::Filler,
                    list_area,
                    true,
                    vec![filler(Role::Panel, header, true, heads), right_scroll],
                ),
                form,
            ],
        );
        let split = Frag::with(
            node(
                Role::SplitPane,
                "",
                body,
                states(true, &[State::Horizontal]),
            ),
            vec![filler(Role::Filler, left, true, vec![left_scroll]), right],
        );
        let content = filler(
            Role::Filler,
            win,
            true,
            vec![menu_bar, tool_bar, split, status_bar],
        );
        Frag::with(frame, vec![content])
    }
}

/// See [`crate::app`].
pub(crate) fn generate(nodes: usize, seed: u64) -> Snapshot {
    let mut rng = Rng::new(seed);
    let mut chrome_rng = rng.fork(1);
    let mut rows_rng = rng.fork(2);
    let (title, app_id) = *rng.pick(words::APPS);
    let place = rng.pick(words::FOLDERS);
    let scale = (nodes as f64 / 1000.0).clamp(0.05, 1.0);

    let win = Rect::new(
        rng.range(0, 240) as i32,
        rng.range(24, 120) as i32,
        1280 + 32 * rng.range(0, 10) as i32,
        800 + 20 * rng.range(0, 10) as i32,
    );
    let (menu_h, tool_h, status_h) = (28, 40, 26);
    let body = Rect::new(
        win.x,
        win.y + menu_h + tool_h,
        win.w,
        win.h - menu_h - tool_h - status_h,
    );
    let left = Rect::new(body.x, body.y, 280, body.h);
    let right = Rect::new(body.x + 284, body.y, body.w - 284, body.h);
    let list_area = Rect::new(right.x, right.y, right.w, right.h * 3 / 5);
    let form_area = Rect::new(
        right.x,
        right.y + list_area.h,
        right.w,
        right.h - list_area.h,
    );

    let window_title = format!("{place} — {title}");
    let frame = node(
        Role::Frame,
        window_title.clone(),
        win,
        states(true, &[State::Active, State::Resizable]),
    );
    let chrome = Chrome {
        frame,
        menu_bar: menu_bar(
            &mut chrome_rng,
            Rect::new(win.x, win.y, win.w, menu_h),
            scale,
        ),
        tool_bar: tool_bar(
            &mut chrome_rng,
            Rect::new(win.x, win.y + menu_h, win.w, tool_h),
            scale,
        ),
        form: form(&mut chrome_rng, form_area, scale),
        status_bar: status_bar(
            &mut chrome_rng,
            Rect::new(win.x, win.y + win.h - status_h, win.w, status_h),
        ),
        body,
        left,
        list_area,
    };
    let fixed = chrome.clone().assemble(Vec::new(), Vec::new()).len();
    let budget = nodes.saturating_sub(fixed);
    let tree_budget = budget / 5;
    let list_budget = budget - tree_budget;

    let mut y = left.y;
    let tree_view = Viewport {
        top: left.y,
        bottom: left.y + left.h,
    };
    let mut names = Names::default();
    let tree = tree_rows(
        &mut rows_rng,
        &mut names,
        tree_budget,
        0,
        left.x,
        left.w - 12,
        &mut y,
        tree_view,
    );
    let rows_area = Rect::new(
        list_area.x,
        list_area.y + 28,
        list_area.w - 12,
        list_area.h - 28,
    );
    let list_view = Viewport {
        top: rows_area.y,
        bottom: rows_area.y + rows_area.h - 12,
    };
    let mut list = list_rows(&mut rows_rng, &mut names, list_budget, rows_area, list_view);
    let mut chrome = chrome;
    if let Some(count) = chrome.status_bar.children.get_mut(1) {
        count.node.name = format!("{} items", list.len());
    }
    let focused = list.len().min(3).saturating_sub(1);
    let has_rows = !list.is_empty();
    if let Some(row) = list.get_mut(focused) {
        row.node.states.insert(State::Selected);
        row.node.states.insert(State::Focused);
    }
    let mut root = chrome.assemble(tree, list);
    if !has_rows {
        root.focus_first(Role::Entry);
    }

    let bus = rng.range(20, 400) as u64;
    let base = rng.range(100, 5000) as u64;
    let meta = Meta {
        source: "atspi".to_owned(),
        app: Some(app_id.to_owned()),
        pid: Some(rng.range(1000, 60000) as u32),
        window: Some(window_title),
        captured_at_ms: Some(1_750_000_000_000 + rng.range(0, 1_000_000_000) as u64),
        capture_ms: Some(nodes as f64 * 0.04),
        truncated: false,
    };
    let tree = write(root, bus, base);
    Snapshot::new(meta, tree)
}

/// Writes the fragment as a tree and numbers identities in preorder.
fn write(root: Frag, bus: u64, base: u64) -> Tree {
    let len = root.len();
    let Frag {
        node: data,
        children,
    } = root;
    let mut builder = TreeBuilder::with_capacity(data, len);
    Frag {
        node: NodeData::default(),
        children,
    }
    .write_children(&mut builder);
    let mut tree = builder.finish();
    for (k, id) in tree.ids().enumerate() {
        tree.node_mut(id).identity = Some(identity(bus, base + k as u64));
    }
    tree
}
