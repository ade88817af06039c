//! The list of applications, as `uidelta apps` and `get_applications` print it.

use uidelta_model::app::App;

use crate::text::{quote, shown};

/// One line per application (`name (pid N)`, and why it does not answer if
/// it does not, or `(no windows)`), its windows indented under it with their
/// role, title and `(active)` / `(hidden)`.
pub fn apps_text(apps: &[App]) -> String {
    if apps.is_empty() {
        return "no applications on the accessibility bus\n".into();
    }
    let mut out = String::new();
    for a in apps {
        out.push_str(&shown(&a.label()));
        match &a.error {
            Some(e) => out.push_str(&format!("  (not answering: {})", shown(e))),
            None if a.windows.is_empty() => out.push_str(" (no windows)"),
            None => {}
        }
        out.push('\n');
        for w in &a.windows {
            let mut flags = Vec::new();
            if w.active {
                flags.push("active");
            }
            if !w.showing {
                flags.push("hidden");
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" ({})", flags.join(", "))
            };
            out.push_str(&format!(
                "  {} {}{flags}\n",
                shown(&w.role),
                quote(&w.title)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::app::Window;

    #[test]
    fn apps_and_windows() {
        let app = App {
            name: "gedit".into(),
            pid: Some(42),
            id: ":1.7".into(),
            windows: vec![
                Window {
                    title: "notes.txt".into(),
                    role: "frame".into(),
                    id: "/w/1".into(),
                    active: true,
                    showing: true,
                },
                Window {
                    title: "Save As".into(),
                    role: "dialog".into(),
                    id: "/w/2".into(),
                    active: false,
                    showing: false,
                },
            ],
            error: None,
        };
        assert_eq!(
            apps_text(&[app]),
            "gedit (pid 42)\n  frame \"notes.txt\" (active)\n  dialog \"Save As\" (hidden)\n"
        );
        assert_eq!(apps_text(&[]), "no applications on the accessibility bus\n");
        let portal = App {
            name: "xdg-desktop-portal-gtk".into(),
            pid: Some(43),
            id: ":1.8".into(),
            windows: Vec::new(),
            error: None,
        };
        assert_eq!(
            apps_text(&[portal]),
            "xdg-desktop-portal-gtk (pid 43) (no windows)\n"
        );
    }

    #[test]
    fn names_and_titles_are_escaped() {
        let app = App {
            name: "evil\u{1b}]0;x\u{7}".into(),
            pid: Some(7),
            id: ":1.9".into(),
            windows: vec![Window {
                title: "a\u{202e}b\tc".into(),
                role: "frame".into(),
                id: "/w/1".into(),
                active: false,
                showing: true,
            }],
            error: None,
        };
        assert_eq!(
            apps_text(&[app]),
            "evil\\u{1b}]0;x\\u{7} (pid 7)\n  frame \"a\\u{202e}b\\tc\"\n"
        );
    }
}
