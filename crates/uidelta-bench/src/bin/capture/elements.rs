//! The elements of an OSWorld accessibility-tree XML, and which of them two
//! such documents share.
//!
//! OSWorld's XML has no identities, so an element is known by its place:
//! the path from the application element down, each step the element's
//! role and its rank among the siblings of that role
//! (`/application[0]/frame[0]/push-button[2]`), as an XPath would name it.
//! Names stay out of the path, so that an element named differently by the
//! two captures is still the same element (counted as renamed), and the
//! elements under it still match.

use std::collections::HashMap;

use uidelta_model::{NodeId, Rect, Tree};

/// One element: where it is and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Element {
    /// Roles and ranks from the application element down.
    pub path: String,
    /// The role, spaces for dashes (`push button`).
    pub role: String,
    pub name: String,
    /// The element's text (or `val:value`), if any.
    pub text: Option<String>,
    /// `cp:screencoord` and `cp:size`, if written.
    pub bounds: Option<Rect>,
}

/// The elements of `xml` under its first `application` element (the
/// document element itself when it is one: uidelta writes one application;
/// OSWorld writes a `desktop-frame` around them), in document order.
pub(super) fn elements(xml: &str) -> Result<Vec<Element>, String> {
    let snapshot =
        uidelta_formats::osworld::parse(xml).map_err(|e| format!("reading OSWorld XML: {e}"))?;
    let tree = snapshot.tree();
    let app = tree
        .ids()
        .find(|&id| tree.node(id).raw_role == "application")
        .ok_or("the XML has no application element")?;
    let mut out = Vec::with_capacity(tree.subtree_len(app));
    walk(tree, app, "", 0, &mut out);
    Ok(out)
}

fn walk(tree: &Tree, id: NodeId, parent: &str, rank: usize, out: &mut Vec<Element>) {
    let node = tree.node(id);
    let path = format!("{parent}/{}[{rank}]", node.raw_role.replace(' ', "-"));
    out.push(Element {
        path: path.clone(),
        role: node.raw_role.clone(),
        name: node.name.clone(),
        text: node.value.clone(),
        bounds: node.bounds,
    });
    let mut ranks: HashMap<&str, usize> = HashMap::new();
    for &child in tree.children(id) {
        let counter = ranks.entry(tree.node(child).raw_role.as_str()).or_default();
        let rank = *counter;
        *counter += 1;
        walk(tree, child, &path, rank, out);
    }
}

/// How two captures' elements line up, by path.
#[derive(Debug, Default)]
pub(super) struct Comparison {
    /// Paths in both.
    pub both: usize,
    /// Elements only in the first capture.
    pub only_first: Vec<Element>,
    /// Elements only in the second capture.
    pub only_second: Vec<Element>,
    /// Elements in both whose names differ (first, second).
    pub renamed: Vec<(Element, Element)>,
    /// Elements in both whose texts differ (first, second).
    pub text_differs: Vec<(Element, Element)>,
    /// Elements in both with bounds on both sides that differ.
    pub bounds_differ: usize,
}

/// Lines up `first` and `second` by path.
pub(super) fn compare(first: &[Element], second: &[Element]) -> Comparison {
    let by_path: HashMap<&str, &Element> = second.iter().map(|e| (e.path.as_str(), e)).collect();
    let mut seen_in_first: HashMap<&str, ()> = HashMap::with_capacity(first.len());
    let mut out = Comparison::default();
    for ours in first {
        seen_in_first.insert(ours.path.as_str(), ());
        let Some(theirs) = by_path.get(ours.path.as_str()) else {
            out.only_first.push(ours.clone());
            continue;
        };
        out.both += 1;
        if ours.name != theirs.name {
            out.renamed.push((ours.clone(), (*theirs).clone()));
        }
        if ours.text != theirs.text {
            out.text_differs.push((ours.clone(), (*theirs).clone()));
        }
        if let (Some(a), Some(b)) = (ours.bounds, theirs.bounds) {
            out.bounds_differ += usize::from(a != b);
        }
    }
    out.only_second = second
        .iter()
        .filter(|e| !seen_in_first.contains_key(e.path.as_str()))
        .cloned()
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: &str = "xmlns:st=\"https://accessibility.ubuntu.example.org/ns/state\" \
                      xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\"";

    #[test]
    fn paths_rank_siblings_of_the_same_role_from_the_application_down() {
        let xml = format!(
            "<desktop-frame {NS}><application name=\"app\"><frame name=\"Main\">\
             <push-button name=\"A\"/><label name=\"L\">hi</label><push-button name=\"B\" \
             cp:screencoord=\"(1, 2)\" cp:size=\"(3, 4)\"/></frame></application></desktop-frame>"
        );
        let got = elements(&xml).unwrap();
        let paths: Vec<&str> = got.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/application[0]",
                "/application[0]/frame[0]",
                "/application[0]/frame[0]/push-button[0]",
                "/application[0]/frame[0]/label[0]",
                "/application[0]/frame[0]/push-button[1]",
            ]
        );
        assert_eq!(got[2].role, "push button");
        assert_eq!(got[3].text.as_deref(), Some("hi"));
        assert_eq!(
            got[4].bounds,
            Some(Rect {
                x: 1,
                y: 2,
                w: 3,
                h: 4
            })
        );
    }

    #[test]
    fn an_application_as_document_element_is_read_the_same() {
        let xml = format!("<application {NS} name=\"app\"><frame name=\"Main\"/></application>");
        let got = elements(&xml).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].path, "/application[0]/frame[0]");
    }

    #[test]
    fn comparison_counts_shared_paths_and_lists_the_rest() {
        let first = elements(&format!(
            "<application {NS} name=\"app\"><frame name=\"Main\">\
             <entry name=\"Note\">x</entry><push-button name=\"Go\"/><separator name=\"\"/>\
             </frame></application>"
        ))
        .unwrap();
        let second = elements(&format!(
            "<desktop-frame {NS}><application name=\"app\"><frame name=\"Main\">\
             <entry name=\"\">y</entry><push-button name=\"Go\"/><push-button name=\"Stop\"/>\
             </frame></application></desktop-frame>"
        ))
        .unwrap();
        let c = compare(&first, &second);
        assert_eq!(c.both, 4);
        let only_first: Vec<&str> = c.only_first.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(only_first, ["/application[0]/frame[0]/separator[0]"]);
        let only_second: Vec<&str> = c.only_second.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(only_second, ["Stop"]);
        assert_eq!(c.renamed.len(), 1);
        assert_eq!(
            (c.renamed[0].0.name.as_str(), c.renamed[0].1.name.as_str()),
            ("Note", "")
        );
        assert_eq!(c.text_differs.len(), 1);
        assert_eq!(c.bounds_differ, 0);
    }
}
