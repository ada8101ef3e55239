//! Swapping staged package directories in, with a journal so that an interrupted swap is
//! finished by the next run, and an exclusive lock so that two runs do not interleave.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::fsutil::{self, dir_id, io, kind, Kind, Pause};
use super::STAGING;
use crate::error::{Error, Result};

/// The journal in the staging directory; its presence is the commit point of a run.
const JOURNAL: &str = "journal";
const HEADER: &str = "ctxgen-journal 1";
const FOOTER: &str = "end";

/// Where the staging area keeps the new package directories.
pub(super) const NEW: &str = "new";
/// Where the two-step swap (no atomic exchange) moves the old directories aside.
const OLD: &str = "old";

/// One package directory to swap in: its name under the output directory and the identity of
/// its staged directory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    id: u64,
}

/// An exclusive lock on the output directory, released when dropped (or when the process dies).
pub(super) struct Lock {
    _file: std::fs::File,
}

pub(super) fn lock(out: &Path) -> Result<Lock> {
    let file = std::fs::File::open(out).map_err(io(out))?;
    #[cfg(unix)]
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| io(out)(e.into()))?;
    Ok(Lock { _file: file })
}

/// Whether the staging area holds a committed journal (a run was interrupted after its commit
/// point and the next run will finish it).
pub(super) fn interrupted(out: &Path) -> bool {
    let staging = out.join(STAGING);
    matches!(kind(&staging), Ok(Kind::Dir)) && read_journal(&staging).is_some()
}

/// Commits the staged directories `names` (under `staging/new`): writes the journal, swaps each
/// in, then removes the staging area. On a failure every directory already swapped is swapped
/// back, so that the run changes nothing.
pub(super) fn commit(out: &Path, staging: &Path, names: &[&str], pause: &Pause) -> Result<()> {
    let mut entries = Vec::new();
    for name in names {
        let path = staging.join(NEW).join(name);
        entries.push(Entry {
            name: name.to_string(),
            id: dir_id(&path).map_err(io(&path))?,
        });
    }
    write_journal(staging, &entries)?;
    pause.tick();
    apply(out, staging, &entries, pause)
}

/// Finishes or rolls back what an interrupted run left: with a committed journal its swap is
/// completed; without one the staging area is only removed (the live directories were never
/// touched).
pub(super) fn recover(out: &Path) -> Result<()> {
    let staging = out.join(STAGING);
    match kind(&staging).map_err(io(&staging))? {
        Kind::Missing => Ok(()),
        Kind::Dir => match read_journal(&staging) {
            Some(entries) => apply(out, &staging, &entries, &Pause::from_env()),
            None => fsutil::remove_tree(&staging).map_err(io(&staging)),
        },
        _ => std::fs::remove_file(&staging).map_err(io(&staging)),
    }
}

/// Swaps every entry in, then drops the journal and the staging area; on a failure swaps back.
fn apply(out: &Path, staging: &Path, entries: &[Entry], pause: &Pause) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        if let Err(err) = swap_in(out, staging, e, pause) {
            // Swap back what is in, newest first; the failed one may be half-way (two-step).
            let undone = entries[..=i]
                .iter()
                .rev()
                .try_for_each(|e| swap_out(out, staging, e));
            return match undone {
                Ok(()) => {
                    drop_journal(staging)?;
                    let _ = fsutil::remove_tree(staging);
                    Err(err)
                }
                Err(undo) => Err(Error::Usage(format!(
                    "{err}; undoing the partial write failed too ({undo}); the next run finishes \
                     it from {}",
                    staging.display()
                ))),
            };
        }
    }
    drop_journal(staging)?;
    // What is left is the old directories; a failure here leaves only garbage that the next
    // run removes.
    let _ = fsutil::remove_tree(staging);
    Ok(())
}

/// Puts the staged directory of `e` at `out/<name>`, unless that is done already.
fn swap_in(out: &Path, staging: &Path, e: &Entry, pause: &Pause) -> Result<()> {
    let new = staging.join(NEW).join(&e.name);
    let live = out.join(&e.name);
    let aside = staging.join(OLD).join(&e.name);
    if !is_staged(&new, e)? {
        return Ok(()); // Swapped in already.
    }
    match kind(&live).map_err(io(&live))? {
        Kind::Missing => {}
        Kind::Dir => {
            if exchange(&live, &new).map_err(io(&live))? {
                pause.tick();
                return Ok(());
            }
            // No atomic exchange here: move the old aside, then the new in.
            std::fs::create_dir_all(staging.join(OLD)).map_err(io(staging))?;
            std::fs::rename(&live, &aside).map_err(io(&live))?;
            pause.tick();
        }
        _ => return Err(super::stage::not_a_dir(&live)),
    }
    std::fs::rename(&new, &live).map_err(io(&live))?;
    pause.tick();
    Ok(())
}

/// Undoes [`swap_in`] of `e` if it is done (or half-done).
fn swap_out(out: &Path, staging: &Path, e: &Entry) -> Result<()> {
    let new = staging.join(NEW).join(&e.name);
    let live = out.join(&e.name);
    let aside = staging.join(OLD).join(&e.name);
    let live_is_new = kind(&live).map_err(io(&live))? == Kind::Dir
        && dir_id(&live).map_err(io(&live))? == e.id
        && !is_staged(&new, e)?;
    let new_kind = kind(&new).map_err(io(&new))?;
    let aside_kind = kind(&aside).map_err(io(&aside))?;
    if live_is_new {
        if new_kind == Kind::Dir {
            // Exchanged: the old directory is at `new`.
            if exchange(&live, &new).map_err(io(&live))? {
                return Ok(());
            }
            return Err(Error::Usage(format!("cannot swap {} back", live.display())));
        }
        std::fs::rename(&live, &new).map_err(io(&live))?;
    }
    // Two-step, or a first write: the old directory (if any) is aside.
    if aside_kind == Kind::Dir && kind(&live).map_err(io(&live))? == Kind::Missing {
        std::fs::rename(&aside, &live).map_err(io(&live))?;
    }
    Ok(())
}

/// Whether `new` is still the staged directory of `e` (not yet swapped in).
fn is_staged(new: &Path, e: &Entry) -> Result<bool> {
    Ok(kind(new).map_err(io(new))? == Kind::Dir && dir_id(new).map_err(io(new))? == e.id)
}

/// Atomically exchanges two directories; `Ok(false)` where the system cannot.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if e == Errno::INVAL || e == Errno::NOSYS || e == Errno::OPNOTSUPP => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

fn write_journal(staging: &Path, entries: &[Entry]) -> Result<()> {
    let mut text = format!("{HEADER}\n");
    for e in entries {
        text.push_str(&format!("{} {}\n", e.id, e.name));
    }
    text.push_str(FOOTER);
    text.push('\n');
    let tmp = staging.join("journal.tmp");
    let path = staging.join(JOURNAL);
    let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    f.write_all(text.as_bytes()).map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    fsutil::sync_dir(staging);
    Ok(())
}

/// The journal's entries, if the staging area holds a complete one.
fn read_journal(staging: &Path) -> Option<Vec<Entry>> {
    let path = staging.join(JOURNAL);
    if kind(&path).ok()? != Kind::File {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let mut entries = Vec::new();
    for line in lines {
        if line == FOOTER {
            return Some(entries);
        }
        let (id, name) = line.split_once(' ')?;
        // Only the plain names the writer uses: never a path.
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', ':']) {
            return None;
        }
        entries.push(Entry {
            name: name.to_string(),
            id: id.parse().ok()?,
        });
    }
    None
}

fn drop_journal(staging: &Path) -> Result<()> {
    let path: PathBuf = staging.join(JOURNAL);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(&path)(e)),
    }
    fsutil::sync_dir(staging);
    Ok(())
}
