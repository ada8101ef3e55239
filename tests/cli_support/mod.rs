//! Helpers shared by the `cli_*` tests: running the binary, snapshotting output trees.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `ctxgen` binary cargo built for these tests (the release one under `--release`).
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ctxgen"))
}

/// Runs `ctxgen` with `args` in `cwd`.
pub fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(cwd)
        .args(args)
        .env_remove("CTXGEN_TEST_WRITE_DELAY_US")
        .output()
        .expect("ctxgen runs")
}

/// Runs `ctxgen` and asserts it exits with `code`; returns stderr.
pub fn run_code(cwd: &Path, args: &[&str], code: i32) -> String {
    let out = run(cwd, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "ctxgen {args:?}\nstdout: {}\nstderr: {stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// One entry of a tree snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Every entry below `root` (relative path → entry), symbolic links not followed.
pub fn tree(root: &Path) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Entry>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let e = e.unwrap();
        let rel = format!("{prefix}{}", e.file_name().to_string_lossy());
        let t = e.file_type().unwrap();
        if t.is_symlink() {
            out.insert(rel, Entry::Link(std::fs::read_link(e.path()).unwrap()));
        } else if t.is_dir() {
            out.insert(rel.clone(), Entry::Dir);
            walk(&e.path(), &format!("{rel}/"), out);
        } else {
            out.insert(rel, Entry::File(std::fs::read(e.path()).unwrap()));
        }
    }
}

/// Modification times of every regular file below `root`.
pub fn mtimes(root: &Path) -> BTreeMap<String, std::time::SystemTime> {
    let mut out = BTreeMap::new();
    for (rel, e) in tree(root) {
        if let Entry::File(_) = e {
            let m = std::fs::symlink_metadata(root.join(&rel)).unwrap();
            out.insert(rel, m.modified().unwrap());
        }
    }
    out
}

/// The differences between two trees, for assertion messages.
pub fn tree_diff(a: &BTreeMap<String, Entry>, b: &BTreeMap<String, Entry>) -> Vec<String> {
    let mut d = Vec::new();
    for (k, v) in a {
        match b.get(k) {
            None => d.push(format!("only in the first: {k}")),
            Some(w) if w != v => d.push(format!("differs: {k}")),
            _ => {}
        }
    }
    for k in b.keys().filter(|k| !a.contains_key(*k)) {
        d.push(format!("only in the second: {k}"));
    }
    d
}

/// Copies a tree (links recreated as links).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (rel, e) in tree(from) {
        let dest = to.join(&rel);
        match e {
            Entry::Dir => std::fs::create_dir_all(&dest).unwrap(),
            Entry::File(bytes) => std::fs::write(&dest, bytes).unwrap(),
            Entry::Link(target) => std::os::unix::fs::symlink(target, &dest).unwrap(),
        }
    }
}

/// Writes `files` (relative path → text) below `dir`.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Whether this process runs as root (file permissions do not stop root).
pub fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    std::fs::write(&probe, "").unwrap();
    std::fs::metadata(&probe).unwrap().uid() == 0
}

/// Makes a directory unwritable: `chmod 555`, or for root (whom permissions do not stop) the
/// immutable attribute. Returns a guard that undoes it.
pub struct ReadOnly(PathBuf);

impl ReadOnly {
    pub fn new(dir: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        if is_root() {
            let st = Command::new("chattr")
                .arg("+i")
                .arg(dir)
                .status()
                .expect("running as root, the test needs chattr to make a directory read-only");
            assert!(st.success(), "chattr +i {} failed", dir.display());
        } else {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        ReadOnly(dir.to_path_buf())
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if is_root() {
            let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        } else {
            let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
        }
    }
}
