//! What `uidelta` keeps between two commands on the same desktop (the same
//! accessibility bus) or browser (the same DevTools endpoint): the
//! session's latest snapshot of each application and its refs. So the ref
//! a command prints (`+ [e172] table cell "Entry Buffer"`) is the ref the
//! next command reads, and the next command reports what changed in
//! between.
//!
//! One JSON file per desktop or browser, in `$UIDELTA_STATE_DIR`, else
//! `$XDG_RUNTIME_DIR/uidelta`, else `/tmp/uidelta-UID` (private to the
//! user). A command holds the file's lock from reading it to writing it, so
//! two commands on one desktop take turns and never hand out the same ref.
//! A file that cannot be read is set aside with a warning, and refs start
//! afresh.

use std::fs::{self, File, OpenOptions};
use std::hash::Hasher;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use uidelta_backend::App;
use uidelta_diff::{Filters, ListItems, Ref, RefTable, View};
use uidelta_engine::{AwayRef, SavedApp, SavedGoneRef, SavedSession};

/// Version of the file layout; a file of another is set aside.
const LAYOUT: u32 = 1;
/// The fewest refs a saved session must have left to be carried on: room
/// for the largest tree a file may hold, several times over.
const REFS_TO_CARRY_ON: u64 = 1 << 24;
/// Most applications kept besides the ones a command used.
const MAX_OTHERS: usize = 16;
/// Most refs of elements that went away kept in the file (the newest):
/// for the error that names a gone ref, and for elements that come back.
/// Past them, an old ref is unknown rather than gone, and an element that
/// returns gets a new one.
const MAX_GONE: usize = 20_000;
/// Files of desktops and browsers not used for this long are removed: their
/// buses and endpoints are gone.
const UNUSED_FOR: std::time::Duration = std::time::Duration::from_secs(3 * 24 * 3600);

/// The file of one desktop or browser, locked while this value lives.
pub struct Store {
    path: PathBuf,
    key: String,
    /// Held for its lock.
    _lock: File,
}

/// The file as written.
#[derive(Serialize, Deserialize)]
struct Layout {
    layout: u32,
    /// The uidelta version that wrote it.
    version: String,
    /// The desktop or browser it belongs to.
    key: String,
    /// One more at every save: tells a long-running command (`watch`)
    /// whether another one saved meanwhile.
    generation: u64,
    next: u32,
    away: Vec<(String, String, u32, u64)>,
    gone: Vec<(u32, String, Option<String>)>,
    /// The applications of the session (the key's name is the file
    /// format's, kept so that older files still read).
    scopes: Vec<AppRecord>,
}

/// One application of the session, as the file keeps it.
#[derive(Serialize, Deserialize)]
struct AppRecord {
    name: String,
    pid: Option<u32>,
    id: String,
    refs: Vec<u32>,
    /// The unfiltered snapshot in the interchange JSON.
    snapshot: String,
    /// The identities of the list items its view leaves out, and of those
    /// it shows ([`uidelta_diff::View::list_items`]).
    left_out: Vec<String>,
    shown: Vec<String>,
}

impl Store {
    /// Opens (creating it if need be) and locks the file of the desktop or
    /// browser `key` names. Waits while another command holds it, saying
    /// so on stderr unless `quiet`.
    pub fn open(key: &str, quiet: bool) -> Result<Store> {
        Store::open_in(&state_dir()?, key, quiet)
    }

    fn open_in(dir: &std::path::Path, key: &str, quiet: bool) -> Result<Store> {
        let mut h = rustc_hash::FxHasher::default();
        h.write(key.as_bytes());
        let path = dir.join(format!("session-{:016x}.json", h.finish()));
        prune(dir);
        let lock_path = path.with_extension("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&lock_path)
            .with_context(|| format!("opening {}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                if !quiet {
                    eprintln!(
                        "uidelta: waiting for another uidelta command on this desktop to finish"
                    );
                }
                lock.lock()
                    .with_context(|| format!("locking {}", lock_path.display()))?;
            }
            Err(fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", lock_path.display()));
            }
        }
        Ok(Store {
            path,
            key: key.to_owned(),
            _lock: lock,
        })
    }

    /// The generation of the file as it is now (0: none, or unreadable).
    pub fn generation(&self) -> u64 {
        #[derive(Deserialize)]
        struct Only {
            generation: u64,
        }
        fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str::<Only>(&t).ok())
            .map_or(0, |o| o.generation)
    }

    /// What the last command saved (nothing when there is no file), and the
    /// file's generation. A file that cannot be read (another layout,
    /// damaged, written for another desktop) is renamed to `*.bad`, with a
    /// warning on stderr.
    pub fn load(&self) -> (Option<SavedSession>, u64) {
        let text = match fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (None, 0),
            Err(e) => {
                self.set_aside(&format!("it cannot be read: {e}"));
                return (None, 0);
            }
        };
        match self.parse(&text) {
            Ok(loaded) => loaded,
            Err(why) => {
                self.set_aside(&why);
                (None, 0)
            }
        }
    }

    fn parse(&self, text: &str) -> std::result::Result<(Option<SavedSession>, u64), String> {
        let file: Layout =
            serde_json::from_str(text).map_err(|e| format!("it is not a session file: {e}"))?;
        if file.layout != LAYOUT || file.version != env!("CARGO_PKG_VERSION") {
            return Err(format!(
                "it was written by uidelta {} (file layout {})",
                file.version, file.layout
            ));
        }
        if file.key != self.key {
            return Err(format!("it belongs to {}", file.key));
        }
        // Refs are never given twice; a counter at the end of them (an
        // edited file) would have every new element share the last one.
        let left = RefTable::restore(Ref(file.next), []).left();
        if left < REFS_TO_CARRY_ON {
            return Err(format!(
                "its ref counter is at e{}, with {left} refs left before the last there is, too \
                 few to carry on: the file was edited or damaged",
                file.next
            ));
        }
        let mut scopes = Vec::with_capacity(file.scopes.len());
        for s in file.scopes {
            let snapshot = uidelta_formats::json::parse(&s.snapshot)
                .map_err(|e| format!("the snapshot of {} does not read: {e}", s.name))?;
            scopes.push(SavedApp {
                app: App {
                    name: s.name,
                    pid: s.pid,
                    id: s.id,
                    windows: Vec::new(),
                    error: None,
                },
                snapshot,
                refs: s.refs.into_iter().map(Ref).collect(),
                list_items: ListItems {
                    left_out: s.left_out,
                    shown: s.shown,
                },
            });
        }
        let saved = SavedSession {
            next: Ref(file.next),
            away: file
                .away
                .into_iter()
                .map(|(root, id, r, hash)| AwayRef {
                    root_identity: root,
                    identity: id,
                    r#ref: Ref(r),
                    subtree_hash: hash,
                })
                .collect(),
            apps: scopes,
            gone: file
                .gone
                .into_iter()
                .map(|(r, was, by)| SavedGoneRef {
                    r#ref: Ref(r),
                    was,
                    replaced_by: by,
                })
                .collect(),
        };
        Ok((Some(saved), file.generation))
    }

    fn set_aside(&self, why: &str) {
        let bad = self.path.with_extension("bad");
        let moved = fs::rename(&self.path, &bad).is_ok();
        eprintln!(
            "uidelta: refs start afresh: the saved session {} could not be used ({why}){}",
            self.path.display(),
            if moved {
                format!("; it is kept as {}", bad.display())
            } else {
                String::new()
            }
        );
    }

    /// Writes `saved` (through a temporary file, so that a crash leaves the
    /// last good one), keeping the applications of `kept` that `saved`
    /// does not have, the most recent first, up to a limit. `loaded` is
    /// the generation [`Store::load`] read (the file is locked since);
    /// returns the one written.
    pub fn save(&self, saved: &SavedSession, kept: &[SavedApp], loaded: u64) -> Result<u64> {
        let generation = loaded + 1;
        let mut scopes: Vec<AppRecord> = saved.apps.iter().map(record).collect();
        scopes.extend(
            kept.iter()
                .filter(|k| saved.apps.iter().all(|s| s.app.id != k.app.id))
                .take(MAX_OTHERS)
                .map(record),
        );
        let file = Layout {
            layout: LAYOUT,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            key: self.key.clone(),
            generation,
            next: saved.next.0,
            // Both are in ref order: the newest are last.
            away: newest(&saved.away)
                .iter()
                .map(|a| {
                    let (root, id) = (a.root_identity.clone(), a.identity.clone());
                    (root, id, a.r#ref.0, a.subtree_hash)
                })
                .collect(),
            gone: newest(&saved.gone)
                .iter()
                .map(|g| (g.r#ref.0, g.was.clone(), g.replaced_by.clone()))
                .collect(),
            scopes,
        };
        let text = serde_json::to_string(&file).context("writing the session")?;
        let tmp = self.path.with_extension("tmp");
        let mut out = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)
            .with_context(|| format!("writing {}", tmp.display()))?;
        out.write_all(text.as_bytes())
            .and_then(|()| out.sync_data())
            .with_context(|| format!("writing {}", tmp.display()))?;
        fs::rename(&tmp, &self.path).with_context(|| format!("writing {}", self.path.display()))?;
        Ok(generation)
    }
}

/// The last [`MAX_GONE`] items.
fn newest<T>(items: &[T]) -> &[T] {
    &items[items.len().saturating_sub(MAX_GONE)..]
}

fn record(s: &SavedApp) -> AppRecord {
    let whole = View::new(&s.snapshot, Filters::none());
    let labels = RefTable::new().label(whole.len());
    AppRecord {
        name: s.app.name.clone(),
        pid: s.app.pid,
        id: s.app.id.clone(),
        refs: s.refs.iter().map(|r| r.0).collect(),
        snapshot: uidelta_render::tree_json(&whole, &labels),
        left_out: s.list_items.left_out.clone(),
        shown: s.list_items.shown.clone(),
    }
}

/// Removes the files of desktops and browsers unused for [`UNUSED_FOR`]
/// (a lock file goes with its session file: it may be old and in use).
fn prune(dir: &std::path::Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let unused = |path: &std::path::Path| {
        fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_none_or(|age| age > UNUSED_FOR)
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with("session-") {
            continue;
        }
        let gone = match path.extension().and_then(|e| e.to_str()) {
            Some("lock") => unused(&path.with_extension("json")) && unused(&path),
            _ => unused(&path),
        };
        if gone {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Where `uidelta mcp` writes get_window_tree's `output_file`s unless told
/// otherwise: `output` in the state directory (made private to the user
/// when the first file is written).
pub fn output_dir() -> Result<PathBuf> {
    Ok(state_dir()?.join("output"))
}

/// The directory of the session files, created private to the user.
fn state_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("UIDELTA_STATE_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .with_context(|| format!("creating {} (UIDELTA_STATE_DIR)", dir.display()))?;
        return Ok(dir);
    }
    let uid = fs::metadata("/proc/self")
        .map(|m| m.uid())
        .context("reading the user id from /proc/self")?;
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(run) => PathBuf::from(run).join("uidelta"),
        None => std::env::temp_dir().join(format!("uidelta-{uid}")),
    };
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
    }
    // In a shared directory, someone else may have made it first.
    let meta = fs::symlink_metadata(&dir).with_context(|| format!("reading {}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        anyhow::bail!(
            "{} is not a private directory of this user; remove it, or set UIDELTA_STATE_DIR",
            dir.display()
        );
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_diff::{Filters, RefTable};

    fn saved(seed: u64) -> SavedSession {
        let mut table = RefTable::new();
        let scopes = (0..2)
            .map(|i| {
                let snapshot = uidelta_synth::app(400, seed + i);
                let view = View::new(&snapshot, Filters::all());
                let refs = table.label(view.len()).as_slice().to_vec();
                SavedApp {
                    app: App {
                        name: format!("app{i}"),
                        pid: Some(100 + i as u32),
                        id: format!(":1.{i}"),
                        windows: Vec::new(),
                        error: None,
                    },
                    list_items: view.list_items(),
                    snapshot,
                    refs,
                }
            })
            .collect();
        table.leaving(Some("/root"), Some("/node/9"), Ref(9), 77);
        SavedSession {
            next: table.peek(),
            away: table
                .away()
                .into_iter()
                .map(|(root_identity, identity, r, subtree_hash)| AwayRef {
                    root_identity,
                    identity,
                    r#ref: r,
                    subtree_hash,
                })
                .collect(),
            apps: scopes,
            gone: vec![SavedGoneRef {
                r#ref: Ref(3),
                was: "[e3] push button \"Save\"".into(),
                replaced_by: Some("[e900] label".into()),
            }],
        }
    }

    #[test]
    fn a_saved_session_reads_back_as_it_was() {
        let dir = std::env::temp_dir().join(format!("uidelta-state-test-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("a directory");
        for (done, seed) in [1, 7, 42].into_iter().enumerate() {
            let before = saved(seed);
            let store = Store::open_in(&dir, "desktop: test", false).expect("open");
            assert_eq!(store.generation(), done as u64);
            let (_, loaded) = store.load();
            assert_eq!(loaded, done as u64);
            assert_eq!(
                store.save(&before, &[], loaded).expect("save"),
                done as u64 + 1
            );
            drop(store);
            let store = Store::open_in(&dir, "desktop: test", false).expect("open again");
            let (after, generation) = store.load();
            let after = after.expect("the saved session");
            assert_eq!(generation, done as u64 + 1);
            assert_eq!(after.next, before.next);
            assert_eq!(after.away, before.away);
            assert_eq!(after.gone, before.gone);
            assert_eq!(after.apps.len(), 2);
            for (a, b) in after.apps.iter().zip(&before.apps) {
                assert_eq!(
                    (&a.app.name, a.app.pid, &a.app.id),
                    (&b.app.name, b.app.pid, &b.app.id)
                );
                assert_eq!(a.refs, b.refs);
                assert_eq!(a.list_items, b.list_items);
                // The same tree, so the same view and the refs fit it.
                assert_eq!(a.snapshot.tree(), b.snapshot.tree());
                let (va, vb) = (
                    View::new(&a.snapshot, Filters::all()),
                    View::new(&b.snapshot, Filters::all()),
                );
                assert_eq!(va.tree(), vb.tree());
            }
        }
        // Only the newest refs of elements gone are kept.
        let mut many = saved(3);
        many.gone = (1..=MAX_GONE as u32 + 500)
            .map(|r| SavedGoneRef {
                r#ref: Ref(r),
                was: format!("[e{r}] label"),
                replaced_by: None,
            })
            .collect();
        let store = Store::open_in(&dir, "desktop: test", false).expect("open");
        let (_, loaded) = store.load();
        store.save(&many, &[], loaded).expect("save");
        let (kept, _) = store.load();
        let kept = kept.expect("the saved session").gone;
        assert_eq!(kept.len(), MAX_GONE);
        assert_eq!(kept.first().map(|g| g.r#ref), Some(Ref(501)));
        drop(store);

        // A ref counter edited to the end of the refs is refused, and the
        // file set aside: refs start afresh.
        let store = Store::open_in(&dir, "desktop: test", false).expect("open");
        let (_, loaded) = store.load();
        store.save(&saved(5), &[], loaded).expect("save");
        let text = fs::read_to_string(&store.path).expect("the session file");
        let mut file: serde_json::Value = serde_json::from_str(&text).expect("json");
        file["next"] = serde_json::json!(u32::MAX);
        fs::write(&store.path, file.to_string()).expect("edit the file");
        let (edited, generation) = store.load();
        assert!(edited.is_none());
        assert_eq!(generation, 0);
        assert!(!store.path.exists());
        assert!(store.path.with_extension("bad").exists());
        file["next"] = serde_json::json!(u32::MAX - (1 << 24) + 1);
        fs::write(&store.path, file.to_string()).expect("edit the file");
        assert!(store.load().0.is_none());
        file["next"] = serde_json::json!(u32::MAX - (1 << 24));
        fs::write(&store.path, file.to_string()).expect("edit the file");
        let (carried, _) = store.load();
        assert_eq!(carried.map(|s| s.next), Some(Ref(u32::MAX - (1 << 24))));
        drop(store);

        // Another desktop's file is its own.
        let other = Store::open_in(&dir, "desktop: other", false).expect("open");
        assert!(other.load().0.is_none());
        let _ = fs::remove_dir_all(&dir);
    }
}
