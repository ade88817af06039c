//! GTK 3 lists that manage their descendants (zenity's `--list`, a tree
//! view): one of a few hundred rows is read whole, every row listed; one
//! whose cells outnumber what is read whole is read as its rows on
//! screen, with its size stated on its line.

mod common;

use uidelta_model::Role;

const ZENITY: &str = "zenity";

/// zenity's list of `rows` rows of two columns: `1 item1`, `2 item2`, ...
fn list_args(rows: usize) -> Vec<String> {
    let mut args = vec![
        "--list".to_owned(),
        "--title=Items".to_owned(),
        "--column=N".to_owned(),
        "--column=Name".to_owned(),
    ];
    for i in 1..=rows {
        args.push(i.to_string());
        args.push(format!("item{i}"));
    }
    args
}

/// The cells and the table's line of zenity's list of `rows` rows.
fn read(rows: usize) -> (Vec<String>, String) {
    let args = list_args(rows);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (desktop, rt) = common::desktop_with(ZENITY, &args, ZENITY, ZENITY);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        // Until the first row is read and the table has the keyboard: the
        // window is up and laid out (read sooner, on a busy machine, it
        // had four rows and no focus yet).
        let ready = |s: &uidelta_engine::Session<uidelta_linux::Linux>| {
            [
                "role:table cell && name:item1",
                "role:table && state:focused",
            ]
            .iter()
            .all(|q| !s.find(&q.parse().expect("selector")).is_empty())
        };
        for _ in 0..50 {
            s.observe(ZENITY).await.expect("observe");
            if ready(&s) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        let scope = &s.known_apps()[0];
        let tree = scope.view.tree();
        let cells: Vec<String> = tree
            .nodes()
            .iter()
            .filter(|n| n.role == Role::TableCell)
            .map(|n| n.name.clone())
            .collect();
        let hits = s.find(&"role:table".parse().expect("selector"));
        assert_eq!(hits.len(), 1, "one table");
        let (scope, node) = hits[0];
        let line = s.known_apps()[scope]
            .subtree_text(node, &uidelta_render::TreeOptions::default())
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        (cells, line)
    })
}

#[test]
fn a_gtk3_list_of_a_few_hundred_rows_is_read_whole() {
    let (cells, table) = read(300);
    // Every row, those scrolled out of view too, and no size stated.
    assert_eq!(cells.len(), 600, "{cells:?}");
    assert_eq!(cells[0], "1");
    assert_eq!(cells[599], "item300");
    assert!(table.ends_with("] table (focused)"), "{table}");
}

#[test]
fn a_gtk3_list_of_thousands_of_cells_is_read_as_its_rows_on_screen() {
    let (cells, table) = read(1500);
    // The rows on screen, from the first, both columns of each.
    assert!(cells.len() >= 4 && cells.len() < 100, "{cells:?}");
    assert_eq!(cells[..4], ["1", "item1", "2", "item2"]);
    let rows = cells.len() / 2;
    let want = format!(
        "] table = \"1500 rows × 2 columns; rows 1-{rows} and columns 1-2 shown: 1 to item{rows}\" (focused)"
    );
    assert!(table.ends_with(&want), "{table} does not end with {want}");
}
