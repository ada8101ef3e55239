//! File-system helpers that never follow a symbolic link below the directory they start from.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};

/// What is at a path, seen without following symbolic links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Missing,
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
    /// A component on the way is not a real directory (a symbolic link or a file).
    Blocked,
}

pub(super) fn io(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What is at `path` itself (the link, not its target).
pub(super) fn kind(path: &Path) -> io::Result<Kind> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(kind_of(&m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Ok(Kind::Blocked),
        Err(e) => Err(e),
    }
}

fn kind_of(m: &Metadata) -> Kind {
    let t = m.file_type();
    if t.is_symlink() {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// What is at `root/rel` (`rel` checked by [`check_rel`]), walking every component below
/// `root` with `lstat`: a component that is not a real directory gives [`Kind::Blocked`].
pub(super) fn kind_under(root: &Path, rel: &str) -> io::Result<Kind> {
    let mut path = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let k = kind(&path)?;
        if i + 1 == parts.len() {
            return Ok(k);
        }
        match k {
            Kind::Dir => {}
            Kind::Missing => return Ok(Kind::Missing),
            _ => return Ok(Kind::Blocked),
        }
    }
    Ok(Kind::Missing)
}

/// Why `rel` is not a plain relative path of `/`-separated names, if it is not: no empty, `.`
/// or `..` component, no leading `/`, no `\`, `:` or control character.
pub(super) fn check_rel(rel: &str) -> std::result::Result<(), &'static str> {
    if rel.is_empty() {
        return Err("it is empty");
    }
    if rel.starts_with('/') {
        return Err("it is absolute");
    }
    if rel.contains(['\\', ':']) || rel.chars().any(char::is_control) {
        return Err("it contains `\\`, `:` or a control character");
    }
    if rel
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err("it has an empty, `.` or `..` component");
    }
    Ok(())
}

/// Refuses two paths that a case-insensitive file system would take for one (two files, or a
/// file and a directory), so that no file silently replaces another there.
pub(super) fn check_case_collisions<'a>(paths: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut files: BTreeMap<String, &str> = BTreeMap::new();
    let mut dirs: BTreeMap<String, String> = BTreeMap::new();
    for p in paths {
        let folded = p.to_lowercase();
        if let Some(other) = files.insert(folded.clone(), p) {
            return Err(Error::Usage(format!(
                "refusing to write `{other}` and `{p}`: their names differ only in case, and a \
                 case-insensitive file system would keep one of them"
            )));
        }
        let mut prefix = String::new();
        for part in p
            .split('/')
            .collect::<Vec<_>>()
            .split_last()
            .map_or(&[][..], |x| x.1)
        {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            dirs.entry(prefix.to_lowercase())
                .or_insert_with(|| prefix.clone());
        }
    }
    for (folded, file) in &files {
        if let Some(dir) = dirs.get(folded) {
            return Err(Error::Usage(format!(
                "refusing to write the file `{file}` and the directory `{dir}`: a \
                 case-insensitive file system would take them for one"
            )));
        }
    }
    Ok(())
}

/// Removes a directory tree (or a file or link) without following links; a directory that is
/// not writable is made writable first.
pub(super) fn remove_tree(path: &Path) -> io::Result<()> {
    match kind(path)? {
        Kind::Missing => Ok(()),
        Kind::Dir => match std::fs::remove_dir_all(path) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                make_writable(path);
                std::fs::remove_dir_all(path)
            }
            r => r,
        },
        _ => std::fs::remove_file(path),
    }
}

#[cfg(unix)]
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        if m.is_dir() {
            let mode = m.permissions().mode();
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o700));
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    make_writable(&e.path());
                }
            }
        }
    }
}

#[cfg(not(unix))]
fn make_writable(_dir: &Path) {}

/// Flushes a directory's entries to disk (best effort: not every platform can open one).
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// A stable identity of a directory while it exists: its inode number on Unix (0 elsewhere,
/// where the swap never exchanges and identity is not needed).
pub(super) fn dir_id(path: &Path) -> io::Result<u64> {
    let m = std::fs::symlink_metadata(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Ok(0)
    }
}

/// Gives `to` the contents of the regular file `from`: a hard link (so an unchanged file keeps
/// its modification time), or a copy with the same modification time where links fail.
pub(super) fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)?;
    let modified = std::fs::symlink_metadata(from)?.modified()?;
    std::fs::OpenOptions::new()
        .write(true)
        .open(to)?
        .set_modified(modified)
}

/// Recreates the symbolic link `from` at `to`, pointing where it points (never followed).
pub(super) fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    let target = std::fs::read_link(from)?;
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, to)
    }
    #[cfg(not(unix))]
    {
        let _ = (target, to);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "cannot recreate a symbolic link on this platform",
        ))
    }
}

/// The test hook `CTXGEN_TEST_WRITE_DELAY_US`: a pause after every step of the write phase, so
/// that a test can kill the process while it writes. Read only when the write phase starts.
pub(super) struct Pause(Option<Duration>);

impl Pause {
    pub(super) fn from_env() -> Self {
        Pause(
            std::env::var(super::DELAY_ENV)
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|us| *us > 0)
                .map(Duration::from_micros),
        )
    }

    pub(super) fn tick(&self) {
        if let Some(d) = self.0 {
            std::thread::sleep(d);
        }
    }
}

/// The directories that `create_dir_all(path)` would create, deepest first.
pub(super) fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut p = path;
    while !p.as_os_str().is_empty() && matches!(kind(p), Ok(Kind::Missing)) {
        missing.push(p.to_path_buf());
        match p.parent() {
            Some(parent) => p = parent,
            None => break,
        }
    }
    missing
}
