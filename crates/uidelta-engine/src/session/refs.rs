//! Resolving targets: refs and selectors to the element they name, and
//! the last words of refs whose element went away.

use uidelta_backend::{Backend, ErrorKind};
use uidelta_diff::{Change, Diff, Element, Handle, Ref};
use uidelta_model::{normalize_space, NodeId, Role, State};

use super::{list, Session};
use crate::error::{Error, Result};
use crate::selector::{self, Selector};
use crate::AppId;

/// A gone ref's last words.
#[derive(Clone, Debug)]
pub(super) struct GoneRef {
    pub(super) was: String,
    pub(super) replaced_by: Option<String>,
}

impl<B: Backend> Session<B> {
    pub(super) fn remember_gone(&mut self, d: &Diff) {
        let added: Vec<&uidelta_diff::Added> = d
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Added(a) => Some(a),
                _ => None,
            })
            .collect();
        // Elements that came back have their refs again.
        for a in &added {
            for node in &a.subtree {
                self.gone.remove(&node.element.r#ref);
            }
        }
        for c in &d.changes {
            if let Change::Removed(r) = c {
                for node in &r.subtree {
                    self.gone.insert(
                        node.element.r#ref,
                        GoneRef {
                            was: describe(&node.element),
                            replaced_by: successor(&node.element, r.parent, &added).map(describe),
                        },
                    );
                }
            }
        }
    }

    /// Every element matching `selector` in the latest snapshots.
    pub fn find(&self, selector: &Selector) -> Vec<(AppId, NodeId)> {
        selector
            .find(&self.app_views())
            .into_iter()
            .map(|f| (f.app, f.node))
            .collect()
    }

    /// The elements that come nearest to matching `selector` when nothing
    /// does: those whose names are closest to a name it asks for (the
    /// candidates a failed action lists), at most five.
    pub fn near_misses(&self, selector: &Selector) -> Vec<(AppId, NodeId)> {
        selector
            .near_misses(&self.app_views(), NEAR_MISSES)
            .into_iter()
            .map(|f| (f.app, f.node))
            .collect()
    }

    fn app_views(&self) -> Vec<selector::AppView<'_>> {
        self.known
            .iter()
            .map(|s| selector::AppView {
                app_name: &s.app.name,
                view: &s.view,
                refs: &s.refs,
            })
            .collect()
    }

    /// The one element `target` (a ref or a selector) names, in the latest
    /// snapshots (refreshed first when their application changed).
    pub async fn resolve(&mut self, target: &str) -> Result<(AppId, NodeId)> {
        let mut silent = Vec::new();
        for idx in (0..self.known.len()).rev().map(AppId) {
            self.listen_again(idx).await;
            if !self.known[idx].changed_since() {
                continue;
            }
            // One that stopped answering is asked briefly first, rather than
            // waiting for a read to time out each time.
            let read = match self.known[idx].stuck.clone() {
                Some(since) => match self.backend.answers(&self.known[idx].app).await {
                    Ok(false) => {
                        silent.push((idx, self.unresponsive(&self.known[idx].app, since)));
                        continue;
                    }
                    Ok(true) => self.refresh(idx).await,
                    Err(e) => Err(Error::Backend(e)),
                },
                None => self.refresh(idx).await,
            };
            match read {
                Ok(d) => self.keep_unreported(idx, d),
                // An application that exited, or does not answer, must not
                // block acting on others.
                Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                    let id = self.known[idx].app.id.clone();
                    self.forget(&id);
                    silent
                        .iter_mut()
                        .for_each(|(i, _)| i.0 -= usize::from(*i > idx));
                }
                Err(Error::Backend(e)) if e.kind == ErrorKind::Timeout => {
                    self.known[idx].stuck = Some("a read of it timed out".into());
                    silent.push((idx, Error::Backend(e)));
                }
                Err(e) => return Err(e),
            }
        }
        let found = self.resolve_now(target)?;
        match silent.into_iter().find(|(idx, _)| *idx == found.0) {
            Some((_, e)) => Err(e),
            None => Ok(found),
        }
    }

    fn resolve_now(&self, target: &str) -> Result<(AppId, NodeId)> {
        let selector: Selector = target.trim().parse()?;
        if let Some(r) = selector.as_ref() {
            return self
                .known
                .iter()
                .enumerate()
                .find_map(|(i, s)| s.refs.find(r).map(|n| (AppId(i), n)))
                .ok_or_else(|| match self.gone.get(&r) {
                    Some(g) => Error::Gone {
                        gone: r,
                        was: g.was.clone(),
                        replaced_by: g.replaced_by.clone(),
                    },
                    None => Error::UnknownRef(r),
                });
        }
        let hits = self.find(&selector);
        if let Some(one) = self
            .only_in_a_modal_window(&hits)
            .or_else(|| self.only_one_shown(&hits))
            .or_else(|| self.only_in_the_working_window(&hits))
        {
            return Ok(one);
        }
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::NoMatch {
                selector: uidelta_backend::echo(target).into_owned(),
                hint: self.no_match_hint(&selector),
                candidates: selector
                    .near_misses(&self.app_views(), NEAR_MISSES)
                    .into_iter()
                    .map(|f| self.offered(f.app, f.node))
                    .collect(),
            }),
            many => {
                // Candidates in several windows say which (two documents'
                // menus read alike).
                let windows: Vec<_> = many.iter().map(|&(i, n)| (i, self.window(i, n))).collect();
                let apart = windows.iter().any(|w| *w != windows[0]);
                Err(Error::Ambiguous {
                    selector: uidelta_backend::echo(target).into_owned(),
                    count: many.len(),
                    candidates: many
                        .iter()
                        .take(10)
                        .map(|&(i, n)| {
                            let mut text = self.offered(i, n);
                            if apart {
                                text.push_str(&self.of_window(i, n));
                            }
                            text
                        })
                        .collect(),
                })
            }
        }
    }
}

impl<B: Backend> Session<B> {
    /// Of several elements a selector matches, the one inside a modal
    /// window that shows, when the others are all in that window's
    /// application and outside it: while the window is open they take no
    /// input, and the one in it is what a person would mean (gedit's
    /// `Save` while its Save As dialog is open, not the header bar's).
    fn only_in_a_modal_window(&self, hits: &[(AppId, NodeId)]) -> Option<(AppId, NodeId)> {
        if hits.len() < 2 {
            return None;
        }
        let modal = |&(app, node): &(AppId, NodeId)| {
            let tree = self.known[app].view.tree();
            std::iter::once(node)
                .chain(tree.ancestors(node))
                .map(|n| tree.node(n).states)
                .any(|states| states.contains(State::Modal) && !states.says_hidden())
        };
        let (inside, outside): (Vec<_>, Vec<_>) = hits.iter().partition(|hit| modal(hit));
        match inside.as_slice() {
            [one] if outside.iter().all(|(app, _)| *app == one.0) => Some(*one),
            _ => None,
        }
    }

    /// Of several elements a selector matches, the one that shows, when
    /// every other one is hidden and outside any menu or combo box: they
    /// take no input (LibreOffice's Format > Character keeps the Size field
    /// of its Asian and Complex pages, hidden, beside the Western one that
    /// shows). A hidden menu item, or option of a closed combo box, is not
    /// passed over: its menus open on the way to it; but it is when the one
    /// that shows is in an open menu, which is the one being worked in.
    fn only_one_shown(&self, hits: &[(AppId, NodeId)]) -> Option<(AppId, NodeId)> {
        if hits.len() < 2 {
            return None;
        }
        let mut shown = None;
        let mut shown_in_menu = false;
        let mut hidden_in_menu = false;
        for &(app, node) in hits {
            let tree = self.known[app].view.tree();
            let chain = || std::iter::once(node).chain(tree.ancestors(node));
            let hidden = chain().any(|n| tree.node(n).states.says_hidden());
            let in_menu = chain().any(|n| opens_on_the_way(tree.node(n).role));
            match (hidden, in_menu) {
                (false, _) if shown.is_some() => return None,
                (false, _) => {
                    shown = Some((app, node));
                    shown_in_menu = in_menu;
                }
                (true, false) => {}
                (true, true) => hidden_in_menu = true,
            }
        }
        // A menu open now is the one meant: Calc's context menu's
        // `Insert...`, not the one in the menu bar's closed Sheet menu.
        if hidden_in_menu && !shown_in_menu {
            return None;
        }
        shown
    }

    /// Of several elements a selector matches in the windows of one
    /// application, the one in the window being worked in, when it holds
    /// only that one: the one window that says it is active, when it also
    /// holds a focused element, or, when no window says it is active, the
    /// window of the focus. Keys and clicks go there, and each of an office
    /// suite's documents has a window with the same menus and tool bars
    /// (`Bold` in the document being written, not in every other's). When
    /// the two disagree nothing is chosen: LibreOffice leaves elements of
    /// its other windows saying they are focused (the focus read as the
    /// last of them, in another window than the active one), and, without
    /// a window manager, gives a new document's window the keyboard while
    /// the first one goes on saying it is active.
    fn only_in_the_working_window(&self, hits: &[(AppId, NodeId)]) -> Option<(AppId, NodeId)> {
        let (app, _) = *hits.first()?;
        if hits.len() < 2 || hits.iter().any(|&(a, _)| a != app) {
            return None;
        }
        let known = &self.known[app];
        let tree = known.view.tree();
        let mut active = tree
            .children(NodeId::ROOT)
            .iter()
            .copied()
            .filter(|&w| tree.node(w).states.contains(State::Active));
        let working = match (active.next(), active.next()) {
            (Some(window), None) => {
                let focused = tree.ids().any(|n| {
                    tree.node(n).states.contains(State::Focused)
                        && self.window(app, n) == Some(window)
                });
                focused.then_some(window)?
            }
            (None, _) => known.view.focus().and_then(|f| self.window(app, f))?,
            _ => return None,
        };
        let (inside, outside): (Vec<_>, Vec<_>) = hits
            .iter()
            .partition(|&&(_, n)| self.window(app, n) == Some(working));
        match inside.as_slice() {
            [one] if !outside.is_empty() => Some(*one),
            _ => None,
        }
    }

    /// The window `node` is in: its ancestor (or itself) just below the
    /// application.
    fn window(&self, app: AppId, node: NodeId) -> Option<NodeId> {
        let tree = self.known[app].view.tree();
        std::iter::once(node)
            .chain(tree.ancestors(node))
            .find(|&n| tree.parent(n) == Some(NodeId::ROOT))
    }

    /// ` of [e2] frame "Untitled 1 - LibreOffice Writer"`: the window an
    /// element offered is in, when it is not the element itself or the
    /// place [`Session::offered`] names already.
    fn of_window(&self, app: AppId, node: NodeId) -> String {
        let known = &self.known[app];
        let Some(window) = self.window(app, node).filter(|&w| w != node) else {
            return String::new();
        };
        let handle = known.handle(window);
        let named = uidelta_diff::context(known.view.tree(), &known.refs, node)
            .is_some_and(|at| at.r#ref == handle.r#ref);
        if named {
            String::new()
        } else {
            format!(" of {}", handle_text(&handle))
        }
    }

    /// An element an error offers, so that an agent can tell it from the
    /// others without reading the tree: `[e12] push button "Save" in [e7]
    /// tool bar "Standard"`, with `(hidden)` or `(disabled)` when it is.
    pub fn offered(&self, app: AppId, node: NodeId) -> String {
        let known = &self.known[app];
        let mut text = handle_text(&known.handle(node));
        let tree = known.view.tree();
        let states = tree.node(node).states;
        let mut flags = Vec::new();
        if !states.is_empty() && !states.contains(State::Enabled) {
            flags.push("disabled");
        }
        if states.says_hidden() {
            flags.push("hidden");
        }
        if !flags.is_empty() {
            text.push_str(&format!(" ({})", flags.join(", ")));
        }
        if let Some(at) = uidelta_diff::context(tree, &known.refs, node) {
            text.push_str(" in ");
            text.push_str(&handle_text(&at));
        }
        text
    }

    /// Where a selector that matched nothing was looked for: the
    /// applications searched, and the one it names when that one exited.
    fn no_match_hint(&self, selector: &Selector) -> String {
        let searched = list(self.known.iter().map(|s| s.app.label()));
        let named_known = self
            .known
            .iter()
            .any(|s| selector.asks_for_app(&s.app.name));
        let exited = self
            .exited
            .iter()
            .rev()
            .find(|(name, _)| !named_known && selector.asks_for_app(name));
        match exited {
            Some((_, label)) if self.known.is_empty() => {
                format!("; {label} exited, and no other application is captured")
            }
            Some((_, label)) => format!("; {label} exited (searched: {searched})"),
            None if self.known.is_empty() => "; no application has been captured yet".into(),
            None => format!(" in {searched}"),
        }
    }
}

/// How many elements a selector that matched nothing offers instead.
const NEAR_MISSES: usize = 5;

/// The element that took the place of `gone` (removed from under
/// `parent`): the one added element of the same role and name (white space
/// normalized), preferring those added under the same parent. Only such a
/// one is offered: an agent that follows the hint acts on it, and a
/// different element in the same place (the `C` key where `=` was, after a
/// keypad switched) does something else.
pub(super) fn successor<'a>(
    gone: &Element,
    parent: Ref,
    added: &[&'a uidelta_diff::Added],
) -> Option<&'a Element> {
    let name = normalize_space(&gone.name);
    let alike = |a: &&&'a uidelta_diff::Added| -> Vec<&'a Element> {
        a.subtree
            .iter()
            .map(|n| &n.element)
            .filter(|e| e.role == gone.role && normalize_space(&e.name) == name)
            .collect()
    };
    let one = |found: Vec<&'a Element>| match found.as_slice() {
        [e] => Some(*e),
        _ => None,
    };
    let near: Vec<&Element> = added
        .iter()
        .filter(|a| a.parent == parent)
        .flat_map(|a| alike(&a))
        .collect();
    if !near.is_empty() {
        return one(near);
    }
    one(added.iter().flat_map(|a| alike(&a)).collect())
}

pub(super) fn describe(e: &Element) -> String {
    handle_text(&e.handle())
}

pub(super) fn handle_text(h: &Handle) -> String {
    if h.name.is_empty() {
        format!("[{}] {}", h.r#ref, h.role)
    } else {
        format!("[{}] {} {:?}", h.r#ref, h.role, h.name)
    }
}

/// Whether what is hidden inside an element of this role is shown on the
/// way to it: menus and combo boxes open when an item in them is acted on.
fn opens_on_the_way(role: Role) -> bool {
    matches!(
        role,
        Role::Menu
            | Role::MenuBar
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
            | Role::PopupMenu
            | Role::TearoffMenuItem
            | Role::ComboBox
    )
}
