//! One session across the commands on one desktop or browser: each command
//! carries on what the previous one saved (see [`crate::state`]).

use std::sync::Arc;

use anyhow::Result;
use uidelta_backend::Backend;
use uidelta_diff::Filters;
use uidelta_engine::{AppId, SavedApp, SavedSession, Session};

use crate::place::{Connected, Place};
use crate::state::Store;

/// A session that carries on the one the last command on this desktop or
/// browser saved, and saves itself with [`Carried::release`].
pub struct Carried<B: Backend> {
    /// The session.
    pub s: Session<B>,
    backend: Arc<B>,
    /// Names the session file; none when nothing is kept.
    key: Option<String>,
    /// The file, locked while this command holds it.
    store: Option<Store>,
    /// Saved applications this command did not touch, kept for later ones.
    others: Vec<SavedApp>,
    /// The generation of the file as this command last read or wrote it.
    generation: u64,
    /// Where the application is among the session's known applications, once read.
    pub known: Option<AppId>,
}

impl<B: Backend> Carried<B> {
    /// Takes the session file of where the command acts (waiting while
    /// another command holds it), resumes its snapshot of `app`, and reads
    /// `app` again (unless `look` is false, for an application that may
    /// not answer): what changed since the last command comes with this
    /// one's result.
    pub async fn open(backend: Arc<B>, key: Option<String>, app: &str, look: bool) -> Result<Self> {
        // Without a session file the command still runs, on its own.
        let store = match key.as_deref().map(|k| Store::open(k, false)) {
            Some(Ok(store)) => Some(store),
            Some(Err(e)) => {
                eprintln!(
                    "uidelta: no session to carry on ({e:#}); refs printed here hold for this \
                     command only"
                );
                None
            }
            None => None,
        };
        let key = key.filter(|_| store.is_some());
        let mut c = Carried {
            s: Session::new(backend.clone()),
            backend,
            key,
            store: None,
            others: Vec::new(),
            generation: 0,
            known: None,
        };
        c.take(store, app, look).await?;
        Ok(c)
    }

    /// Goes on from the session saved in `store` (a new one if none).
    async fn take(&mut self, store: Option<Store>, app: &str, look: bool) -> Result<()> {
        let (saved, generation) = match &store {
            Some(store) => store.load(),
            None => (None, 0),
        };
        self.store = store;
        self.generation = generation;
        self.known = None;
        let Some(saved) = saved else {
            self.s = Session::new(self.backend.clone());
            self.others = Vec::new();
            if look {
                self.known = Some(self.s.look(app).await?);
            }
            return Ok(());
        };
        let found = match Session::new(self.backend.clone()).find_app(app).await {
            Ok(found) => Some(found),
            Err(e) if look => return Err(e.into()),
            Err(_) => None,
        };
        // This application's snapshot, and those of earlier runs of it
        // (same name, another process), whose refs are then gone.
        let SavedSession {
            next,
            away,
            apps: scopes,
            gone,
        } = saved;
        let (mine, others): (Vec<SavedApp>, Vec<SavedApp>) = scopes.into_iter().partition(|k| {
            found.as_ref().is_some_and(|f| {
                k.app.id == f.id
                    || (k.app.name == f.name && k.app.pid.is_some() && k.app.pid != f.pid)
            })
        });
        let exited: Vec<String> = mine
            .iter()
            .filter(|k| found.as_ref().is_some_and(|f| k.app.id != f.id))
            .map(|k| k.app.id.clone())
            .collect();
        let saved = SavedSession {
            next,
            away,
            apps: mine,
            gone,
        };
        let (mut s, _) = Session::resume(self.backend.clone(), Filters::all(), saved).await;
        for id in exited {
            s.forget(&id);
        }
        // The others are read only if this command's action sends the
        // focus to one of them.
        s.hold_in_reserve(others.clone());
        self.s = s;
        self.others = others;
        if let (true, Some(found)) = (look, found) {
            self.known = Some(self.s.look_at(found).await?);
        }
        Ok(())
    }

    /// Saves the session for the next command and lets other commands have
    /// the file. A failure is a warning: the result is printed all the
    /// same.
    pub fn release(&mut self) {
        let Some(store) = self.store.take() else {
            return;
        };
        match store.save(&self.s.save(), &self.others, self.generation) {
            Ok(generation) => self.generation = generation,
            Err(e) => eprintln!(
                "uidelta: the session could not be saved ({e:#}); the refs of new elements \
                 printed here may name other elements in the next command"
            ),
        }
    }

    /// Takes the file again after [`Carried::release`] (`watch` and
    /// `wait-change` do not hold it while they wait). When another command
    /// saved meanwhile, goes on from its session, with this session's
    /// latest snapshot of `app` as the newest.
    pub async fn reacquire(&mut self, app: &str) -> Result<()> {
        let Some(key) = self.key.as_deref() else {
            return Ok(());
        };
        // Waiting here is routine: the command that acted is saving.
        let store = Store::open(key, true)?;
        if store.generation() == self.generation {
            self.store = Some(store);
            return Ok(());
        }
        let latest = self.known.map(|i| {
            let scope = &self.s.known_apps()[i];
            (scope.app.id.clone(), scope.snapshot.clone())
        });
        self.take(Some(store), app, false).await?;
        if let Some((id, snapshot)) = latest {
            self.s.catch_up(&id, snapshot);
            self.known = self.s.known_id(&id);
        }
        Ok(())
    }
}

/// What names the session file of the desktop or browser the command acts
/// on; none for a browser started for this command alone.
pub fn key(place: &Place, connected: &Connected) -> Option<String> {
    match connected {
        Connected::Desktop(linux) => Some(format!(
            "desktop: accessibility bus {}, display {}",
            linux.bus().address(),
            std::env::var("DISPLAY").unwrap_or_default()
        )),
        Connected::Browser(cdp, _) if !place.browser => {
            Some(format!("browser: {}", cdp.endpoint()))
        }
        Connected::Browser(..) => None,
    }
}
