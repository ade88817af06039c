//! The form part of a window: a notebook of property pages.

use uidelta_model::{Rect, Role, State};

use super::{
    entry_states, file_name, filler, folder_name, hidden, node, scaled, states, valued, Frag, ROW,
};
use crate::rng::Rng;
use crate::words;

/// A property page in a notebook: fields, options, a radio group, buttons.
pub(super) fn form(rng: &mut Rng, rect: Rect, scale: f64) -> Frag {
    let tabs = Rect::new(rect.x + 8, rect.y + 4, rect.w - 16, rect.h - 8);
    let page = Rect::new(tabs.x, tabs.y + 30, tabs.w, tabs.h - 30);
    let col = |i: i32| Rect::new(page.x + 12, page.y + 8 + 30 * i, 120, 26);
    let field = |i: i32| Rect::new(page.x + 140, page.y + 8 + 30 * i, page.w / 2 - 150, 26);

    let mut grid = Vec::new();
    let folder = folder_name(rng);
    let fields = [
        ("Name", file_name(rng)),
        ("Location", format!("/home/user/{folder}")),
        ("Tags", String::new()),
        ("Owner", "user".to_owned()),
    ];
    let shown = scaled(4, scale, 1);
    let mut row = 0;
    for (label, value) in fields.into_iter().take(shown) {
        let l = node(
            Role::Label,
            format!("{label}:"),
            col(row),
            states(true, &[]),
        );
        let mut e = valued(
            Role::Entry,
            label,
            value,
            field(row),
            states(true, &entry_states()),
        );
        if label == "Tags" {
            e.set_attribute("placeholder-text", "Add tags…");
        }
        grid.push(Frag::leaf(l));
        grid.push(Frag::leaf(e));
        row += 1;
    }
    let spin_states = states(true, &entry_states());
    let spin = valued(
        Role::SpinButton,
        "Columns",
        rng.range(1, 8).to_string(),
        field(row),
        spin_states,
    );
    grid.push(Frag::leaf(node(
        Role::Label,
        "Columns:",
        col(row),
        states(true, &[]),
    )));
    grid.push(Frag::leaf(spin));
    row += 1;
    let sort = rng.below(words::SORT_KEYS.len());
    let combo_rect = field(row);
    let mut options = Vec::new();
    for (i, key) in words::SORT_KEYS.iter().enumerate() {
        let r = Rect::new(
            combo_rect.x,
            combo_rect.y + 26 * (i as i32 + 1),
            combo_rect.w,
            26,
        );
        let mut s = states(false, &[State::Selectable]);
        s.set(State::Selected, i == sort);
        options.push(Frag::leaf(node(Role::MenuItem, *key, r, s)));
    }
    let popup = Rect::new(
        combo_rect.x,
        combo_rect.y + 26,
        combo_rect.w,
        26 * options.len() as i32,
    );
    let menu = Frag::with(node(Role::Menu, "", popup, states(false, &[])), options);
    let combo_states = states(
        true,
        &[State::Focusable, State::Expandable, State::HasPopup],
    );
    let combo = node(
        Role::ComboBox,
        words::SORT_KEYS[sort],
        combo_rect,
        combo_states,
    );
    grid.push(Frag::leaf(node(
        Role::Label,
        "Sort by:",
        col(row),
        states(true, &[]),
    )));
    grid.push(Frag::with(combo, vec![menu]));
    row += 1;
    let grid_rect = Rect::new(page.x, page.y, page.w / 2, 30 * row + 8);

    let right = page.x + page.w / 2;
    let mut checks = Vec::new();
    let count = scaled(rng.range(4, 6), scale, 1);
    for (i, option) in words::OPTIONS.iter().take(count).enumerate() {
        let r = Rect::new(right + 8, page.y + 8 + 28 * i as i32, 220, 24);
        let mut s = states(true, &[State::Focusable, State::Checkable]);
        s.set(State::Checked, rng.chance(0.4));
        checks.push(Frag::leaf(node(Role::CheckBox, *option, r, s)));
    }
    let checks_rect = Rect::new(right, page.y, page.w / 4, 28 * count as i32 + 8);

    let radio_x = right + page.w / 4;
    let mut radios = vec![Frag::leaf(node(
        Role::Label,
        "Icon size:",
        Rect::new(radio_x + 8, page.y + 8, 120, 24),
        states(true, &[]),
    ))];
    let picked = rng.below(3);
    for (i, size) in ["Small", "Medium", "Large"].iter().enumerate() {
        let r = Rect::new(radio_x + 8, page.y + 36 + 28 * i as i32, 160, 24);
        let mut s = states(true, &[State::Focusable, State::Checkable]);
        s.set(State::Checked, i == picked);
        radios.push(Frag::leaf(node(Role::RadioButton, *size, r, s)));
    }
    let radios_rect = Rect::new(radio_x, page.y, page.w / 4, 124);

    let buttons_y = page.y + page.h - 40;
    let sep = Rect::new(page.x, buttons_y - 6, page.w, 2);
    let revert = Rect::new(page.x + page.w - 200, buttons_y, 92, 32);
    let apply = Rect::new(page.x + page.w - 100, buttons_y, 92, 32);
    let buttons = vec![
        Frag::leaf(node(
            Role::PushButton,
            "Revert",
            revert,
            states(true, &[State::Focusable]),
        )),
        Frag::leaf(node(
            Role::PushButton,
            "Apply",
            apply,
            states(true, &[State::Focusable, State::IsDefault]),
        )),
    ];
    let buttons_rect = Rect::new(page.x, buttons_y, page.w, 32);

    let general = vec![filler(
        Role::Panel,
        page,
        true,
        vec![
            filler(Role::Filler, grid_rect, true, grid),
            filler(Role::Filler, checks_rect, true, checks),
            filler(Role::Filler, radios_rect, true, radios),
            Frag::leaf(node(Role::Separator, "", sep, states(true, &[]))),
            filler(Role::Filler, buttons_rect, true, buttons),
        ],
    )];

    let tab = |i: i32| Rect::new(tabs.x + 110 * i, tabs.y, 106, 28);
    let selected = states(true, &[State::Selectable, State::Selected]);
    let mut pages = vec![Frag::with(
        node(Role::PageTab, "General", tab(0), selected),
        general,
    )];
    if scale >= 0.3 {
        let perms = vec![Frag::with(
            node(Role::Panel, "", page, hidden(&[])),
            vec![
                Frag::leaf(node(Role::Label, "Access:", col(0), hidden(&[]))),
                Frag::leaf(node(
                    Role::ComboBox,
                    "Read and write",
                    field(0),
                    hidden(&[State::Focusable]),
                )),
                Frag::leaf(node(Role::Label, "Group:", col(1), hidden(&[]))),
                Frag::leaf(node(
                    Role::ComboBox,
                    "users",
                    field(1),
                    hidden(&[State::Focusable]),
                )),
                Frag::leaf(node(
                    Role::CheckBox,
                    "Allow executing",
                    field(2),
                    hidden(&[State::Focusable, State::Checkable]),
                )),
            ],
        )];
        let unselected = states(true, &[State::Selectable]);
        pages.push(Frag::with(
            node(Role::PageTab, "Permissions", tab(1), unselected),
            perms,
        ));
    }
    if scale >= 0.6 {
        let apps = [
            "Text Editor",
            "Image Viewer",
            "Archive Manager",
            "Web Browser",
        ];
        let list = Frag::with(
            node(Role::List, "", page, hidden(&[State::Focusable])),
            apps.iter()
                .enumerate()
                .map(|(i, app)| {
                    let r = Rect::new(page.x, page.y + ROW * i as i32, page.w, ROW);
                    Frag::leaf(node(Role::ListItem, *app, r, hidden(&[State::Selectable])))
                })
                .collect(),
        );
        let unselected = states(true, &[State::Selectable]);
        let panel = Frag::with(node(Role::Panel, "", page, hidden(&[])), vec![list]);
        pages.push(Frag::with(
            node(Role::PageTab, "Open With", tab(2), unselected),
            vec![panel],
        ));
    }
    let tab_list = Frag::with(node(Role::PageTabList, "", tabs, states(true, &[])), pages);
    filler(Role::Filler, rect, true, vec![tab_list])
}
