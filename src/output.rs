//! Writing generated files: atomically, only when changed, only under the output directory,
//! and removing files an earlier run wrote that are no longer generated.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The file in each language directory that lists what ctxgen wrote there.
pub const MANIFEST: &str = ".ctxgen-manifest";

/// What a check or a write found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files written (or that would be written) because they were missing or different.
    pub changed: Vec<PathBuf>,
    /// Files an earlier run wrote that are no longer generated.
    pub stale: Vec<PathBuf>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.stale.is_empty()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Compares `files` (relative path → contents) with what is under `root`.
pub fn diff(root: &Path, files: &BTreeMap<String, String>) -> Result<Changes> {
    let mut changes = Changes::default();
    for (rel, contents) in files {
        let path = root.join(rel);
        match std::fs::read(&path) {
            Ok(old) if old == contents.as_bytes() => {}
            _ => changes.changed.push(path),
        }
    }
    if let Ok(old) = std::fs::read_to_string(root.join(MANIFEST)) {
        for rel in old.lines().filter(|l| !l.is_empty() && *l != MANIFEST) {
            if !files.contains_key(rel) && safe_relative(rel) && root.join(rel).exists() {
                changes.stale.push(root.join(rel));
            }
        }
    }
    Ok(changes)
}

fn safe_relative(rel: &str) -> bool {
    !rel.starts_with('/') && !rel.split('/').any(|c| c == ".." || c.is_empty())
}

/// Writes `files` under `root` (with a manifest), touching only files whose contents change.
pub fn write(root: &Path, files: &BTreeMap<String, String>) -> Result<Changes> {
    let mut all = files.clone();
    let manifest: String = files.keys().map(|k| format!("{k}\n")).collect();
    all.insert(MANIFEST.to_string(), manifest);
    let changes = diff(root, &all)?;
    for path in &changes.changed {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let tmp = path.with_extension("ctxgen-tmp");
        std::fs::write(&tmp, all[&rel].as_bytes()).map_err(io(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io(path))?;
    }
    for path in &changes.stale {
        std::fs::remove_file(path).map_err(io(path))?;
    }
    Ok(changes)
}
