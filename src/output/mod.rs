//! Writing generated files: all or nothing, only under the output directory, never through a
//! symbolic link, and touching only what changed.
//!
//! # Layout
//!
//! The output directory `OUT` holds one directory per language (`OUT/rust`, `OUT/typescript`,
//! `OUT/python`), each with a `.ctxgen-manifest` listing the files ctxgen wrote there. While a
//! run writes, `OUT/.ctxgen-staging` holds its work; it is gone when the run ends.
//!
//! # A run
//!
//! 1. Everything is rendered in memory first (by the caller); a rendering error writes nothing.
//! 2. The paths are checked: plain relative paths (no `..`, no absolute path), no two that a
//!    case-insensitive file system would merge.
//! 3. `OUT` is locked (`flock`, released when the process ends, however it ends).
//! 4. What an interrupted run left is recovered (see below).
//! 5. Each language directory is compared with what was rendered. Nothing below `OUT` is
//!    reached through a symbolic link: every component is checked with `lstat`, and a language
//!    directory that is a link is refused. If nothing changed, the run stops here and writes
//!    nothing at all (every file keeps its modification time).
//! 6. Each language directory that changed is built complete in `OUT/.ctxgen-staging/new/<lang>`:
//!    changed files are written, unchanged files are hard links to the live copies (so they keep
//!    their modification time; a copy with the same time where links fail), and every entry of
//!    the live directory that is not ctxgen's (not named in its manifest: `target/`,
//!    `node_modules/`, a symbolic link a user made) is carried over the same way, links
//!    recreated as links. Files the old manifest names that are no longer generated are left
//!    behind. A live entry in the way of a generated path (a symbolic link or a file where a
//!    directory is generated) is an error. Carrying over costs one hard link per file of the
//!    user's, and only in a run where something changed.
//! 7. Commit: the journal `OUT/.ctxgen-staging/journal` (the staged directories and their inode
//!    numbers) is written to a temporary file, synced and renamed into place.
//! 8. Each staged directory is swapped with the live one by one atomic
//!    `renameat2(RENAME_EXCHANGE)` (a plain rename when there is no live one). Where the system
//!    has no atomic exchange (not Linux) the old directory is renamed aside and the new one in.
//! 9. The journal is removed, then the staging area with the old directories in it.
//!
//! A failure (an unwritable directory, a name too long, a full disk) before the commit removes
//! the staging area; a failure during the swaps swaps back what was swapped. Either way the run
//! exits with an error naming the path and leaves the previous output as it was, and an output
//! directory that did not exist is removed again.
//!
//! # Interrupted runs
//!
//! A run killed at any point leaves every language directory either complete and old or
//! complete and new, because each changes by one atomic rename (with the two-step fallback the
//! directory is briefly missing instead). The run as a whole is atomic once the next run (or
//! [`recover`]) has looked at the staging area: without a journal the killed run had not
//! committed, and its staging area is removed (everything stays old); with a journal the swaps
//! are finished (everything becomes new), telling a swapped directory from a staged one by its
//! inode number. A staging area is never read as output, and `--check` reports a committed but
//! unfinished run as a difference.
//!
//! The guarantee is against the process dying (a kill, a crash, an error), not against power
//! loss: files are not synced to disk, only the journal is. Another process changing `OUT`
//! while ctxgen runs is outside the guarantee too.
//!
//! # Test hook
//!
//! `CTXGEN_TEST_WRITE_DELAY_US`, read only when the write phase starts, pauses that many
//! microseconds after each file staged and each swap step, so that a test can kill the process
//! while it writes (`tests/cli_kill.rs`).

mod fsutil;
mod stage;
mod swap;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use fsutil::{check_rel, io, kind, Kind, Pause};

/// The file in each language directory that lists what ctxgen wrote there.
pub const MANIFEST: &str = ".ctxgen-manifest";

/// The directory in the output directory where a run stages its work.
pub const STAGING: &str = ".ctxgen-staging";

/// The test hook: microseconds to pause after each step of the write phase.
pub const DELAY_ENV: &str = "CTXGEN_TEST_WRITE_DELAY_US";

/// The files of one package: relative path (with `/`) → contents.
pub type Files = BTreeMap<String, String>;

/// What a check or a write found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files written (or that would be written) because they were missing or different.
    pub changed: Vec<PathBuf>,
    /// Files an earlier run wrote that are no longer generated.
    pub stale: Vec<PathBuf>,
    /// The staging area of a run that was interrupted after its commit point (`--check` only;
    /// a write finishes that run first).
    pub interrupted: Option<PathBuf>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.stale.is_empty() && self.interrupted.is_none()
    }
}

/// The contents of a package's manifest.
pub fn manifest(files: &Files) -> String {
    files.keys().map(|k| format!("{k}\n")).collect()
}

/// A package's files as written: path → contents, borrowed from the rendered [`Files`].
type View<'a> = BTreeMap<&'a str, &'a str>;

/// The files with the manifest `listed` added (nothing is copied).
fn with_manifest<'a>(files: &'a Files, listed: &'a str) -> View<'a> {
    let mut all: View = files
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    all.insert(MANIFEST, listed);
    all
}

/// Refuses package names and file paths that could leave the package directory, collide with
/// ctxgen's own files, or collide on a case-insensitive file system.
fn validate(packages: &[(&str, &Files)]) -> Result<()> {
    let mut names = BTreeSet::new();
    let mut all = Vec::new();
    for (name, files) in packages {
        if check_rel(name).is_err() || name.contains('/') || name.starts_with(".ctxgen") {
            return Err(Error::Usage(format!(
                "invalid package directory name `{name}`"
            )));
        }
        if !names.insert(*name) {
            return Err(Error::Usage(format!(
                "package directory `{name}` given twice"
            )));
        }
        for rel in files.keys() {
            if let Err(why) = check_rel(rel) {
                return Err(Error::Usage(format!(
                    "refusing to write `{name}/{rel}`: {why}"
                )));
            }
            if rel == MANIFEST {
                return Err(Error::Usage(format!(
                    "refusing to write `{name}/{rel}`: the name of ctxgen's manifest"
                )));
            }
            all.push(format!("{name}/{rel}"));
        }
        all.push(format!("{name}/{MANIFEST}"));
    }
    fsutil::check_case_collisions(all.iter().map(String::as_str))
}

/// Compares the packages (language directory name → files) with what is under `out`; writes
/// nothing.
pub fn check(out: &Path, packages: &[(&str, &Files)]) -> Result<Changes> {
    validate(packages)?;
    let mut changes = Changes::default();
    for (name, files) in packages {
        let live = out.join(name);
        let listed = manifest(files);
        let all = with_manifest(files, &listed);
        match kind(&live).map_err(io(&live))? {
            Kind::Missing | Kind::Dir => {
                let plan = stage::plan(&live, &all)?;
                changes
                    .changed
                    .extend(plan.changed.iter().map(|r| live.join(r)));
                changes
                    .stale
                    .extend(plan.stale.iter().map(|r| live.join(r)));
            }
            // A language directory that is a link or a file is not ctxgen's output.
            _ => changes.changed.extend(all.keys().map(|r| live.join(r))),
        }
    }
    if swap::interrupted(out) {
        changes.interrupted = Some(out.join(STAGING));
    }
    Ok(changes)
}

/// Writes the packages (language directory name → files) under `out`, all or nothing, and
/// removes the files earlier runs wrote there that are no longer generated.
pub fn write(out: &Path, packages: &[(&str, &Files)]) -> Result<Changes> {
    validate(packages)?;
    let created = fsutil::missing_dirs(out);
    std::fs::create_dir_all(out).map_err(io(out))?;
    let result = write_locked(out, packages);
    if result.is_err() {
        // An output directory this run created goes again (only if empty).
        for dir in &created {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
    result
}

fn write_locked(out: &Path, packages: &[(&str, &Files)]) -> Result<Changes> {
    let _lock = swap::lock(out)?;
    swap::recover(out)?;
    let mut changes = Changes::default();
    let mut plans = Vec::new();
    let listed: Vec<String> = packages.iter().map(|(_, files)| manifest(files)).collect();
    for ((name, files), listed) in packages.iter().zip(&listed) {
        let live = out.join(name);
        let all = with_manifest(files, listed);
        let plan = stage::plan(&live, &all)?;
        changes
            .changed
            .extend(plan.changed.iter().map(|r| live.join(r)));
        changes
            .stale
            .extend(plan.stale.iter().map(|r| live.join(r)));
        if !plan.is_empty() {
            plans.push((*name, all, plan));
        }
    }
    if plans.is_empty() {
        return Ok(changes);
    }
    let pause = Pause::from_env();
    let staging = out.join(STAGING);
    std::fs::create_dir(&staging).map_err(io(&staging))?;
    let staged = (|| {
        let new_root = staging.join(swap::NEW);
        std::fs::create_dir(&new_root).map_err(io(&new_root))?;
        for (name, all, plan) in &plans {
            stage::build(&out.join(name), &new_root.join(name), all, plan, &pause)?;
        }
        Ok(())
    })();
    if let Err(e) = staged {
        let _ = fsutil::remove_tree(&staging);
        return Err(e);
    }
    let names: Vec<&str> = plans.iter().map(|(n, _, _)| *n).collect();
    swap::commit(out, &staging, &names, &pause)?;
    Ok(changes)
}

/// Finishes or rolls back a run that was interrupted while writing under `out` (every write
/// does this first; `--check` only reports it).
pub fn recover(out: &Path) -> Result<()> {
    if kind(out).map_err(io(out))? == Kind::Missing {
        return Ok(());
    }
    let _lock = swap::lock(out)?;
    swap::recover(out)
}
