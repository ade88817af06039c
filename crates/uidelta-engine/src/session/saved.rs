//! A session carried from one process to the next: what `uidelta` keeps
//! between two commands so that the refs one prints are the refs the next
//! one reads.

use std::collections::HashSet;
use std::sync::Arc;

use uidelta_backend::{App, Backend};
use uidelta_diff::{Filters, ListItems, Ref, RefTable, Refs, View};
use uidelta_model::Snapshot;

use super::refs::GoneRef;
use super::{KnownApp, Session};
use crate::settle::Movers;

/// Everything a later session needs to carry on this one's refs
/// ([`Session::save`], [`Session::resume`]). Changes not yet reported are
/// not part of it: the next read of an application finds them again.
#[derive(Clone, Debug)]
pub struct SavedSession {
    /// The ref the next new element gets.
    pub next: Ref,
    /// Elements that left, for when they return (see [`RefTable::away`]),
    /// oldest ref first.
    pub away: Vec<AwayRef>,
    /// The latest snapshot of each application, with its refs.
    pub apps: Vec<SavedApp>,
    /// Refs of elements that went away, for the error that names them, in
    /// ref order.
    pub gone: Vec<SavedGoneRef>,
}

/// An element that left, kept so that it gets its ref again when it
/// returns (see [`RefTable::away`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AwayRef {
    /// The identity of its application's root.
    pub root_identity: String,
    /// Its identity.
    pub identity: String,
    /// Its ref.
    pub r#ref: Ref,
    /// The hash of its subtree as it left.
    pub subtree_hash: u64,
}

/// A ref whose element went away, with its last words (see
/// [`crate::Error::Gone`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedGoneRef {
    /// The ref.
    pub r#ref: Ref,
    /// What it was.
    pub was: String,
    /// What took its place, when matching knows.
    pub replaced_by: Option<String>,
}

/// The latest snapshot of one application, as saved.
#[derive(Clone, Debug)]
pub struct SavedApp {
    /// The application.
    pub app: App,
    /// Its latest snapshot, unfiltered.
    pub snapshot: Snapshot,
    /// The ref of every node of the snapshot's view under the session's
    /// filters, in preorder.
    pub refs: Vec<Ref>,
    /// Which list items the view leaves out and which it shows: what it
    /// decided following the views before it ([`View::following`]), so
    /// that the view built again is the one the refs are of.
    pub list_items: ListItems,
}

impl<B: Backend> Session<B> {
    /// The session as it stands, for [`Session::resume`] in another
    /// process.
    pub fn save(&self) -> SavedSession {
        let mut gone: Vec<SavedGoneRef> = self
            .gone
            .iter()
            .map(|(r, g)| SavedGoneRef {
                r#ref: *r,
                was: g.was.clone(),
                replaced_by: g.replaced_by.clone(),
            })
            .collect();
        gone.sort_by_key(|g| g.r#ref);
        SavedSession {
            next: self.table.peek(),
            away: self
                .table
                .away()
                .into_iter()
                .map(|(root_identity, identity, r, subtree_hash)| AwayRef {
                    root_identity,
                    identity,
                    r#ref: r,
                    subtree_hash,
                })
                .collect(),
            apps: self
                .known
                .iter()
                .map(|s| SavedApp {
                    app: s.app.clone(),
                    snapshot: s.snapshot.clone(),
                    refs: s.refs.as_slice().to_vec(),
                    list_items: s.view.list_items(),
                })
                .collect(),
            gone,
        }
    }

    /// Keeps `apps`, saved by an earlier run of the same session (the
    /// same refs: see [`Session::resume`]) and not resumed, for when one
    /// of them is first observed: an action whose focus goes to one of
    /// them (a dialog closing onto another application's window) answers
    /// with what changed in it since, under the refs its elements had,
    /// not with its whole tree under new ones. Read only then: an
    /// application in reserve costs nothing until it is.
    pub fn hold_in_reserve(&mut self, apps: Vec<SavedApp>) {
        self.reserve = apps;
    }

    /// Takes `app`'s saved snapshot out of the reserve into the known
    /// applications, stale (read again before use), when its refs fit it
    /// and no known element has them; whether it did.
    pub(crate) async fn adopt(&mut self, app: &App) -> bool {
        let Some(at) = self.reserve.iter().position(|k| k.app.id == app.id) else {
            return false;
        };
        let saved = self.reserve.swap_remove(at);
        let view = View::with_list_items(&saved.snapshot, self.filters, &saved.list_items);
        let next = self.table.peek().0;
        let taken: HashSet<Ref> = self
            .known
            .iter()
            .flat_map(|k| k.refs.as_slice().iter().copied())
            .collect();
        if !refs_fit(&saved.refs, view.len(), next, &taken) {
            return false;
        }
        let Ok(events) = self.subscribe(app).await else {
            return false;
        };
        self.known.push(KnownApp {
            app: app.clone(),
            snapshot: saved.snapshot,
            view,
            refs: Refs::from_vec(saved.refs),
            events,
            movers: Movers::default(),
            stuck: None,
            stale: true,
            acting: None,
        });
        true
    }

    /// A session on `backend` that carries on `saved`, which was saved
    /// under the same `filters`: the same refs for the same elements, and
    /// fresh refs that no saved element has.
    ///
    /// Nothing tells what happened between the save and now, so each
    /// application is read again before it is used, and what changed
    /// meanwhile is reported with the next result, as changes found before
    /// an action are. An application whose refs do not fit its snapshot (a
    /// save from another version) is left out, and so is one the backend
    /// no longer has: their elements get fresh refs. Returns the
    /// applications left out with the session.
    pub async fn resume(
        backend: Arc<B>,
        filters: Filters,
        saved: SavedSession,
    ) -> (Session<B>, Vec<App>) {
        let mut session = Session::new(backend).with_filters(filters);
        let mut taken: HashSet<Ref> = HashSet::new();
        let mut left_out = Vec::new();
        for saved_app in saved.apps {
            let view = View::with_list_items(&saved_app.snapshot, filters, &saved_app.list_items);
            let fits = refs_fit(&saved_app.refs, view.len(), saved.next.0, &taken);
            let events = match fits {
                true => session.subscribe(&saved_app.app).await.ok(),
                false => None,
            };
            let Some(events) = events else {
                left_out.push(saved_app.app);
                continue;
            };
            taken.extend(saved_app.refs.iter().copied());
            session.known.push(KnownApp {
                app: saved_app.app,
                snapshot: saved_app.snapshot,
                view,
                refs: Refs::from_vec(saved_app.refs),
                events,
                movers: Movers::default(),
                stuck: None,
                stale: true,
                acting: None,
            });
        }
        for g in saved.gone {
            let (was, replaced_by) = (g.was, g.replaced_by);
            session.gone.insert(g.r#ref, GoneRef { was, replaced_by });
        }
        let away = saved
            .away
            .into_iter()
            .map(|a| (a.root_identity, a.identity, a.r#ref, a.subtree_hash));
        session.table = RefTable::restore(saved.next, away);
        (session, left_out)
    }
}

/// Whether saved `refs` fit a view of `len` elements: one each, none of
/// them twice, all handed out before `next`, none `taken` by another
/// application.
fn refs_fit(refs: &[Ref], len: usize, next: u32, taken: &HashSet<Ref>) -> bool {
    refs.len() == len
        && refs
            .iter()
            .all(|r| r.0 != 0 && r.0 < next && !taken.contains(r))
        && refs.iter().collect::<HashSet<_>>().len() == refs.len()
}
