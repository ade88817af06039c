//! A session carried from one process to the next: what `uidelta` keeps
//! between two commands so that the refs one prints are the refs the next
//! one reads.

use std::collections::HashSet;
use std::sync::Arc;

use uidelta_backend::{App, Backend};
use uidelta_diff::{Filters, Ref, RefTable, Refs, View};
use uidelta_model::Snapshot;

use super::refs::GoneRef;
use super::{Latest, Session};
use crate::settle::Movers;

/// Everything a later session needs to carry on this one's refs
/// ([`Session::save`], [`Session::resume`]). Changes not yet reported are
/// not part of it: the next read of an application finds them again.
#[derive(Clone, Debug)]
pub struct Saved {
    /// The ref the next new element gets.
    pub next: Ref,
    /// Elements that left, for when they return (see [`RefTable::away`]).
    pub away: Vec<(String, String, Ref, u64)>,
    /// The latest snapshot of each application, with its refs.
    pub scopes: Vec<SavedScope>,
    /// Refs of elements that went away: `(ref, what it was, what took its
    /// place)`, for the error that names them.
    pub gone: Vec<(Ref, String, Option<String>)>,
}

/// The latest snapshot of one application, as saved.
#[derive(Clone, Debug)]
pub struct SavedScope {
    /// The application.
    pub app: App,
    /// Its latest snapshot, unfiltered.
    pub snapshot: Snapshot,
    /// The ref of every node of the snapshot's view under the session's
    /// filters, in preorder.
    pub refs: Vec<Ref>,
}

impl<B: Backend> Session<B> {
    /// The session as it stands, for [`Session::resume`] in another
    /// process.
    pub fn save(&self) -> Saved {
        let mut gone: Vec<(Ref, String, Option<String>)> = self
            .gone
            .iter()
            .map(|(r, g)| (*r, g.was.clone(), g.replaced_by.clone()))
            .collect();
        gone.sort_by_key(|(r, _, _)| *r);
        Saved {
            next: self.table.peek(),
            away: self.table.away(),
            scopes: self
                .scopes
                .iter()
                .map(|s| SavedScope {
                    app: s.app.clone(),
                    snapshot: s.snapshot.clone(),
                    refs: s.refs.as_slice().to_vec(),
                })
                .collect(),
            gone,
        }
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
    pub async fn resume(backend: Arc<B>, filters: Filters, saved: Saved) -> (Session<B>, Vec<App>) {
        let mut session = Session::new(backend).with_filters(filters);
        let mut taken: HashSet<Ref> = HashSet::new();
        let mut left_out = Vec::new();
        for scope in saved.scopes {
            let view = View::new(&scope.snapshot, filters);
            let fits = scope.refs.len() == view.len()
                && scope.refs.iter().all(|r| r.0 != 0 && r.0 < saved.next.0)
                && scope.refs.iter().collect::<HashSet<_>>().len() == scope.refs.len()
                && scope.refs.iter().all(|r| !taken.contains(r));
            let events = match fits {
                true => session.subscribe(&scope.app).await.ok(),
                false => None,
            };
            let Some(events) = events else {
                left_out.push(scope.app);
                continue;
            };
            taken.extend(scope.refs.iter().copied());
            session.scopes.push(Latest {
                app: scope.app,
                snapshot: scope.snapshot,
                view,
                refs: Refs::from_vec(scope.refs),
                events,
                movers: Movers::default(),
                stuck: None,
                stale: true,
            });
        }
        for (r, was, replaced_by) in saved.gone {
            session.gone.insert(r, GoneRef { was, replaced_by });
        }
        session.table = RefTable::restore(saved.next, saved.away);
        (session, left_out)
    }
}
