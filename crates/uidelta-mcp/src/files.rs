//! Files the server writes (receipts of `--log-dir`, `get_window_tree`'s
//! `output_file`): only into a directory of this user that no one else may
//! enter, never through a symbolic link, never over a file it did not make.
//!
//! The server may run as root with its directory under `/tmp`, where anyone
//! can make a directory or a link first. So the directory is opened once
//! per write, without following a link, and checked through that handle;
//! the file is then made through the handle (`/proc/self/fd/N/NAME`), so
//! that swapping the directory after the check changes nothing.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;

/// A directory of this user that no one else may enter, open.
pub(crate) struct PrivateDir {
    path: PathBuf,
    handle: File,
}

impl PrivateDir {
    /// Opens `path`, creating it (mode 0700, and its missing parents) when
    /// it is missing. Refuses a symbolic link, a directory of another user,
    /// and one that others may read, enter or write.
    pub(crate) fn open(path: &Path) -> Result<PrivateDir, String> {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
            .map_err(|e| format!("creating {}: {e}", path.display()))?;
        let handle = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| {
                if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
                    format!(
                        "refusing {}: it is a symbolic link; name the directory itself",
                        path.display()
                    )
                } else {
                    format!("opening {}: {e}", path.display())
                }
            })?;
        let meta = handle
            .metadata()
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let me = this_user().map_err(|e| format!("reading the user id from /proc/self: {e}"))?;
        if meta.uid() != me {
            return Err(format!(
                "refusing {}: it belongs to user {}, not to this user ({me}); remove it or name \
                 another directory",
                path.display(),
                meta.uid()
            ));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "refusing {}: other users may use it (mode {:o}); make it private \
                 (chmod 700) or name another directory",
                path.display(),
                meta.mode() & 0o7777
            ));
        }
        Ok(PrivateDir {
            path: path.to_owned(),
            handle,
        })
    }

    /// Where `name` (one file name) is, for messages and answers.
    pub(crate) fn path_of(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// `name` inside the open directory, whatever its path now leads to.
    fn through_handle(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.handle.as_raw_fd())).join(name)
    }

    /// Makes the file `name` (mode 0600), which must not exist yet (not
    /// even as a symbolic link), and writes `bytes` into it.
    pub(crate) fn create(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, CreateError> {
        let path = self.path_of(name);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.through_handle(name))
            .map_err(|e| match e.kind() {
                ErrorKind::AlreadyExists => CreateError::Exists(path.clone()),
                _ => CreateError::Io(format!("creating {}: {e}", path.display())),
            })?;
        file.write_all(bytes)
            .map_err(|e| CreateError::Io(format!("writing {}: {e}", path.display())))?;
        Ok(path)
    }

    /// Writes `bytes` as the file `name` (mode 0600), replacing a file of
    /// that name: through a new file renamed over it, so a symbolic link
    /// there is replaced, never followed.
    pub(crate) fn replace(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let temp = format!(
            ".{name}.{}-{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.create(&temp, bytes).map_err(|e| e.to_string())?;
        let path = self.path_of(name);
        std::fs::rename(self.through_handle(&temp), self.through_handle(name)).map_err(|e| {
            let _ = std::fs::remove_file(self.through_handle(&temp));
            format!("writing {}: {e}", path.display())
        })?;
        Ok(path)
    }
}

/// Why [`PrivateDir::create`] made no file.
#[derive(Debug)]
pub(crate) enum CreateError {
    /// Something (a file, a link) has the name already.
    Exists(PathBuf),
    /// Anything else.
    Io(String),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Exists(p) => write!(f, "{} exists already", p.display()),
            CreateError::Io(why) => f.write_str(why),
        }
    }
}

/// The user this process runs as (the owner of its /proc entry).
fn this_user() -> std::io::Result<u32> {
    std::fs::metadata("/proc/self").map(|m| m.uid())
}

/// `dir` made absolute (from the working directory), so that answers and
/// messages name it whatever the client's working directory is.
pub(crate) fn absolute(dir: PathBuf) -> PathBuf {
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The directory `get_window_tree` writes an `output_file` into
/// (`uidelta mcp --output-dir DIR`): an `output_file` is a file name in it
/// and nowhere else. A file of that name is replaced, so one name can be
/// used for each application's latest tree.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
}

impl OutputDir {
    /// Writes into `dir`, created (private to this user) and checked at the
    /// first write.
    pub fn new(dir: impl Into<PathBuf>) -> OutputDir {
        OutputDir {
            dir: absolute(dir.into()),
        }
    }

    /// Writes into `dir`, created and checked now: a symbolic link, a
    /// directory of another user, or one open to others is refused.
    pub fn open(dir: impl Into<PathBuf>) -> Result<OutputDir, Error> {
        let out = OutputDir::new(dir);
        PrivateDir::open(&out.dir).map_err(|e| Error::Config(format!("output directory: {e}")))?;
        Ok(out)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `text` as `file` (a file name, or its full path in the
    /// directory) and answers with its full path, or why it was refused.
    pub(crate) fn write(&self, file: &str, text: &str) -> Result<PathBuf, String> {
        let name = self.file_name(file)?;
        PrivateDir::open(&self.dir)?.replace(&name, text.as_bytes())
    }

    /// The one file name `file` gives in the directory.
    fn file_name(&self, file: &str) -> Result<String, String> {
        let given = Path::new(file.trim());
        let relative = if given.is_absolute() {
            given.strip_prefix(&self.dir).unwrap_or(Path::new(""))
        } else {
            given
        };
        let mut parts = relative.components();
        match (parts.next(), parts.next()) {
            (Some(Component::Normal(name)), None) => name
                .to_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("`output_file` {file:?} is not UTF-8")),
            _ => Err(format!(
                "`output_file` must be a file name, written into the server's output \
                 directory {}; {file:?} is not one",
                self.dir.display()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_file_is_one_name_in_the_directory() {
        let out = OutputDir::new("/run/user/1000/uidelta/output");
        for (file, name) in [
            ("tree.txt", Some("tree.txt")),
            (" gedit.txt ", Some("gedit.txt")),
            ("/run/user/1000/uidelta/output/tree.txt", Some("tree.txt")),
            ("", None),
            ("..", None),
            ("../x", None),
            ("a/b.txt", None),
            ("./", None),
            ("/etc/x", None),
            ("/run/user/1000/uidelta/output", None),
            ("/run/user/1000/uidelta/output/../x", None),
            ("/run/user/1000/uidelta/output/a/b", None),
        ] {
            assert_eq!(out.file_name(file).ok().as_deref(), name, "{file:?}");
        }
    }
}
