//! Comparing a package with its live directory, and building its new directory in the staging
//! area: generated files written (or hard-linked from the live copy when unchanged), files that
//! are not ctxgen's carried over, stale files left behind.

use std::collections::BTreeSet;
use std::path::Path;

use super::fsutil::{self, check_rel, io, kind, kind_under, Kind, Pause};
use super::{View, MANIFEST};
use crate::error::{Error, Result};

/// How one package differs from its live directory.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Files (relative paths, the manifest included) missing or different in the live directory.
    pub changed: Vec<String>,
    /// Files the live manifest names, that are regular files there, and that are no longer
    /// generated.
    pub stale: Vec<String>,
    /// Files identical in the live directory.
    unchanged: BTreeSet<String>,
    /// The live manifest's entries that are plain relative paths (others are ignored).
    manifest: BTreeSet<String>,
    live: bool,
}

impl Plan {
    pub(super) fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.stale.is_empty()
    }
}

/// Compares `files` (the manifest included) with the live directory `live`, which must be a
/// real directory or missing. Nothing below `live` is reached through a symbolic link.
pub(super) fn plan(live: &Path, files: &View<'_>) -> Result<Plan> {
    let mut plan = Plan::default();
    match kind(live).map_err(io(live))? {
        Kind::Missing => {
            plan.changed = files.keys().map(|k| k.to_string()).collect();
            return Ok(plan);
        }
        Kind::Dir => plan.live = true,
        _ => return Err(not_a_dir(live)),
    }
    if kind_under(live, MANIFEST).map_err(io(live))? == Kind::File {
        let path = live.join(MANIFEST);
        let text = std::fs::read(&path).map_err(io(&path))?;
        plan.manifest = String::from_utf8_lossy(&text)
            .lines()
            .filter(|l| *l != MANIFEST && check_rel(l).is_ok())
            .map(str::to_string)
            .collect();
    }
    for (rel, contents) in files {
        let path = live.join(rel);
        let same = kind_under(live, rel).map_err(io(&path))? == Kind::File
            && std::fs::read(live.join(rel)).is_ok_and(|old| old == contents.as_bytes());
        if same {
            plan.unchanged.insert(rel.to_string());
        } else {
            plan.changed.push(rel.to_string());
        }
    }
    for rel in &plan.manifest {
        if !files.contains_key(rel.as_str())
            && kind_under(live, rel).map_err(io(&live.join(rel)))? == Kind::File
        {
            plan.stale.push(rel.clone());
        }
    }
    Ok(plan)
}

pub(super) fn not_a_dir(live: &Path) -> Error {
    Error::Usage(format!(
        "{}: not a real directory (a symbolic link or a file); ctxgen writes only into real \
         directories below the output directory",
        live.display()
    ))
}

/// Builds the package's new directory `new` (which must not exist): every generated file, and
/// every entry of the live directory that is not ctxgen's.
pub(super) fn build(
    live: &Path,
    new: &Path,
    files: &View<'_>,
    plan: &Plan,
    pause: &Pause,
) -> Result<()> {
    std::fs::create_dir(new).map_err(io(new))?;
    for (rel, contents) in files {
        let dest = new.join(rel);
        let shown = live.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(io(&shown))?;
        }
        let linked = plan.unchanged.contains(*rel)
            && kind_under(live, rel).is_ok_and(|k| k == Kind::File)
            && std::fs::hard_link(live.join(rel), &dest).is_ok();
        if !linked {
            write_new(&dest, contents.as_bytes()).map_err(io(&shown))?;
        }
        pause.tick();
    }
    if plan.live {
        let mut gen_dirs = BTreeSet::new();
        for rel in files.keys() {
            let mut prefix: &str = rel;
            while let Some((dir, _)) = prefix.rsplit_once('/') {
                gen_dirs.insert(dir.to_string());
                prefix = dir;
            }
        }
        let carry = Carry {
            files,
            gen_dirs: &gen_dirs,
            plan,
            live_root: live,
        };
        carry.dir(live, new, "")?;
    }
    Ok(())
}

fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(bytes)
}

/// Carries the entries of the live directory that are not ctxgen's into the new directory.
struct Carry<'a> {
    files: &'a View<'a>,
    gen_dirs: &'a BTreeSet<String>,
    plan: &'a Plan,
    live_root: &'a Path,
}

impl Carry<'_> {
    fn dir(&self, from: &Path, to: &Path, prefix: &str) -> Result<()> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(from).map_err(io(from))? {
            let entry = entry.map_err(io(from))?;
            let t = entry.file_type().map_err(io(&entry.path()))?;
            entries.push((entry.file_name(), t));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, t) in entries {
            let src = from.join(&name);
            let dest = to.join(&name);
            // A name that is not UTF-8 is never one ctxgen generates.
            let rel = name.to_str().map(|n| format!("{prefix}{n}"));
            let rel = rel.as_deref();
            if prefix.is_empty() && rel == Some(MANIFEST) {
                continue;
            }
            let generated = rel.is_some_and(|r| self.files.contains_key(r));
            let needed_as_dir = rel.is_some_and(|r| self.gen_dirs.contains(r));
            if t.is_dir() {
                if generated {
                    // A directory of only ctxgen's stale files gives way to the file.
                    if self.holds_user_entries(&src, rel.unwrap_or_default())? {
                        return Err(
                            self.conflict(&src, "is a directory where ctxgen now writes a file")
                        );
                    }
                    continue;
                }
                let created = match kind(&dest).map_err(io(&dest))? {
                    Kind::Missing => {
                        std::fs::create_dir(&dest).map_err(io(&dest))?;
                        true
                    }
                    _ => false,
                };
                let sub = match rel {
                    Some(r) => format!("{r}/"),
                    None => String::from("\u{0}"),
                };
                self.dir(&src, &dest, &sub)?;
                // A directory that held only stale files goes with them.
                let now_empty = std::fs::read_dir(&dest)
                    .map_err(io(&dest))?
                    .next()
                    .is_none();
                let was_empty = std::fs::read_dir(&src).map_err(io(&src))?.next().is_none();
                if created && now_empty && !was_empty {
                    std::fs::remove_dir(&dest).map_err(io(&dest))?;
                }
            } else if t.is_symlink() {
                if needed_as_dir {
                    return Err(self.conflict(
                        &src,
                        "is a symbolic link where ctxgen now writes a directory; ctxgen does not \
                         write through links",
                    ));
                }
                if !generated {
                    fsutil::copy_link(&src, &dest).map_err(io(&src))?;
                }
            } else if t.is_file() {
                let ours = generated || rel.is_some_and(|r| self.plan.manifest.contains(r));
                if needed_as_dir && !ours {
                    return Err(
                        self.conflict(&src, "is a file where ctxgen now writes a directory")
                    );
                }
                if !ours && !needed_as_dir {
                    fsutil::link_or_copy(&src, &dest).map_err(io(&src))?;
                }
            }
            // FIFOs, sockets and devices are not carried over.
        }
        Ok(())
    }

    /// Whether the live directory `dir` (at `rel`) holds anything but files the live manifest
    /// names (empty directories aside).
    fn holds_user_entries(&self, dir: &Path, rel: &str) -> Result<bool> {
        for entry in std::fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let t = entry.file_type().map_err(io(&entry.path()))?;
            let Some(name) = entry.file_name().to_str().map(|n| format!("{rel}/{n}")) else {
                return Ok(true);
            };
            let user = if t.is_dir() {
                self.holds_user_entries(&entry.path(), &name)?
            } else {
                !(t.is_file() && self.plan.manifest.contains(&name))
            };
            if user {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn conflict(&self, path: &Path, why: &str) -> Error {
        Error::Usage(format!(
            "{} {why}; move it away or remove it (nothing was written in {})",
            path.display(),
            self.live_root.display()
        ))
    }
}
