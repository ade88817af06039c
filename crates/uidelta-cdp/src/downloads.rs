//! Downloads: a link or a script that saves a file.
//!
//! A page's accessibility tree says nothing of a download, and a headless
//! browser shows no download bar: a click on `Download report` read as no
//! change at all. So the browser's download events (`Browser.
//! downloadWillBegin`, `Browser.downloadProgress`, asked for with
//! `Browser.setDownloadBehavior`) are kept per tab, and a capture of the
//! tab shows them at the end of its page, as a browser's download bar
//! does: a `list "Downloads"` with one `list item` per file, named after
//! it, whose value says where it stands (`downloading: 3.1 MB of 8.0 MB`,
//! `saved to /root/Downloads/report.pdf (52 kB)`, `cancelled`).
//!
//! A browser uidelta starts saves into a directory of its own choosing
//! ([`crate::LaunchOptions::downloads`], by default `~/Downloads`); one it
//! attaches to keeps saving where it does, and says where.

use std::collections::HashMap;
use std::sync::Mutex;

use uidelta_model::{NodeData, NodeId, Role, Snapshot, State, StateSet, TreeBuilder};

/// Most downloads a tab's list keeps, the latest last.
const MAX_KEPT: usize = 20;

/// Where a download stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    Running,
    Done,
    Cancelled,
}

/// One download.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Download {
    guid: String,
    /// The file's name, as the page suggests it.
    name: String,
    progress: Progress,
    received: f64,
    total: f64,
    /// Where it was saved, once it was.
    path: Option<String>,
}

impl Download {
    /// What the list item's value says.
    fn said(&self) -> String {
        match (self.progress, &self.path) {
            (Progress::Done, Some(path)) => format!("saved to {path} ({})", size(self.received)),
            (Progress::Done, None) => format!("saved ({})", size(self.received)),
            (Progress::Cancelled, _) => "cancelled".into(),
            (Progress::Running, _) if self.total > 0.0 => format!(
                "downloading: {} of {}",
                size(self.received),
                size(self.total)
            ),
            (Progress::Running, _) => format!("downloading: {}", size(self.received)),
        }
    }
}

/// A number of bytes as people read it: `9 bytes`, `52 kB`, `3.1 MB`.
fn size(bytes: f64) -> String {
    let bytes = bytes.max(0.0);
    if bytes < 1000.0 {
        return format!("{bytes:.0} bytes");
    }
    let (value, unit) = match bytes {
        b if b < 1e6 => (b / 1e3, "kB"),
        b if b < 1e9 => (b / 1e6, "MB"),
        b => (b / 1e9, "GB"),
    };
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// The downloads of a connection's tabs.
#[derive(Debug, Default)]
pub(crate) struct Downloads {
    /// Per tab, oldest first.
    by_tab: Mutex<HashMap<String, Vec<Download>>>,
}

impl Downloads {
    /// A download began in `tab`.
    pub fn began(&self, tab: &str, guid: &str, name: &str) {
        if let Ok(mut by_tab) = self.by_tab.lock() {
            let list = by_tab.entry(tab.to_owned()).or_default();
            list.retain(|d| d.guid != guid);
            list.push(Download {
                guid: guid.to_owned(),
                name: name.to_owned(),
                progress: Progress::Running,
                received: 0.0,
                total: 0.0,
                path: None,
            });
            if list.len() > MAX_KEPT {
                list.remove(0);
            }
        }
    }

    /// A download went on, ended or was cancelled.
    pub fn progressed(
        &self,
        guid: &str,
        progress: Progress,
        (received, total): (f64, f64),
        path: Option<&str>,
    ) {
        let Ok(mut by_tab) = self.by_tab.lock() else {
            return;
        };
        let found = by_tab
            .values_mut()
            .flat_map(|list| list.iter_mut())
            .find(|d| d.guid == guid);
        if let Some(d) = found {
            d.progress = progress;
            d.received = received;
            d.total = total;
            if let Some(path) = path.filter(|p| !p.is_empty()) {
                d.path = Some(path.to_owned());
            }
        }
    }

    /// Whether a download of `tab` is under way.
    pub fn running(&self, tab: &str) -> bool {
        self.by_tab.lock().is_ok_and(|by_tab| {
            by_tab
                .get(tab)
                .is_some_and(|list| list.iter().any(|d| d.progress == Progress::Running))
        })
    }

    /// The downloads of `tab`, oldest first.
    pub fn of(&self, tab: &str) -> Vec<Download> {
        self.by_tab
            .lock()
            .ok()
            .and_then(|by_tab| by_tab.get(tab).cloned())
            .unwrap_or_default()
    }
}

/// `page` with the list of `downloads` at the end of its document.
pub(crate) fn with_downloads(page: Snapshot, downloads: &[Download]) -> Snapshot {
    if downloads.is_empty() {
        return page;
    }
    let (meta, tree) = page.into_parts();
    let mut builder = TreeBuilder::with_capacity(
        tree.node(NodeId::ROOT).clone(),
        tree.len() + downloads.len() + 1,
    );
    tree.copy_children_into(NodeId::ROOT, &mut builder);
    let shown = [
        State::Enabled,
        State::Sensitive,
        State::Showing,
        State::Visible,
    ];
    let mut list = NodeData::named(Role::List, "Downloads");
    list.raw_role = "list".into();
    list.description = "the browser's downloads from this tab".into();
    list.states = StateSet::of(&shown);
    list.identity = Some("downloads".into());
    builder.open(list);
    for d in downloads {
        let mut item = NodeData::named(Role::ListItem, d.name.clone());
        item.raw_role = "listitem".into();
        item.value = Some(d.said());
        item.states = StateSet::of(&shown);
        item.identity = Some(format!("download:{}", d.guid));
        builder.leaf(item);
    }
    Snapshot::new(meta, builder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(size(9.0), "9 bytes");
        assert_eq!(size(52_300.0), "52 kB");
        assert_eq!(size(3_140_000.0), "3.1 MB");
        assert_eq!(size(2.5e9), "2.5 GB");
    }

    #[test]
    fn a_download_is_an_item_of_the_list_at_the_end_of_its_tab() {
        let downloads = Downloads::default();
        downloads.began("t", "g1", "report.pdf");
        assert!(downloads.running("t"));
        downloads.progressed("g1", Progress::Running, (4e6, 8e6), None);
        let page = Snapshot::new(
            uidelta_model::Meta::default(),
            TreeBuilder::new(NodeData::named(Role::DocumentWeb, "Files")).finish(),
        );
        let shown = with_downloads(page.clone(), &downloads.of("t"));
        let nodes = crate::synthetic::rows(&shown);
        assert_eq!(
            nodes,
            [
                ("document web", "Files", None),
                ("list", "Downloads", None),
                (
                    "list item",
                    "report.pdf",
                    Some("downloading: 4.0 MB of 8.0 MB")
                ),
            ]
        );
        downloads.progressed(
            "g1",
            Progress::Done,
            (8e6, 8e6),
            Some("/root/Downloads/report.pdf"),
        );
        assert!(!downloads.running("t"));
        let shown = with_downloads(page.clone(), &downloads.of("t"));
        assert_eq!(
            shown.tree().node(NodeId(2)).value.as_deref(),
            Some("saved to /root/Downloads/report.pdf (8.0 MB)")
        );
        assert!(downloads.of("other").is_empty());
        assert_eq!(with_downloads(page.clone(), &[]), page);
    }
}
