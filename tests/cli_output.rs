//! Output containment and atomicity: ctxgen writes and removes only below `--out`, never through
//! a symbolic link, and a failed run leaves the previous output exactly as it was.

#![cfg(unix)]

mod cli_support;

use std::collections::BTreeMap;
use std::path::Path;

use cli_support::{mtimes, run_code, tree, tree_diff, write_files, Entry, ReadOnly};

const A: &str =
    r#"{"title": "Alpha", "type": "object", "properties": {"name": {"type": "string"}}}"#;
const A2: &str = r#"{"title": "Alpha", "type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}"#;
const B: &str = r#"{"title": "Beta", "type": "object", "properties": {"n": {"type": "number"}}}"#;

/// A temporary directory with `schemas/a.json` and `schemas/b.json`, generated into `out`.
fn generated() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("schemas/a.json", A), ("schemas/b.json", B)]);
    generate(dir.path(), 0);
    dir
}

fn generate(dir: &Path, code: i32) -> String {
    run_code(
        dir,
        &["generate", "--schemas", "schemas", "--out", "out"],
        code,
    )
}

fn no_staging(dir: &Path) {
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ctxgen"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}

#[test]
fn a_read_only_language_dir_fails_the_run_and_changes_nothing() {
    let dir = generated();
    let out = dir.path().join("out");
    let before = tree(&out);
    let times = mtimes(&out);
    // The schema change touches every language; python, written last, cannot be replaced.
    std::fs::write(dir.path().join("schemas/a.json"), A2).unwrap();
    {
        let _ro = ReadOnly::new(&out.join("python"));
        let err = generate(dir.path(), 2);
        assert!(err.contains("out/python"), "{err}");
    }
    assert!(
        tree_diff(&before, &tree(&out)).is_empty(),
        "{:?}",
        tree_diff(&before, &tree(&out))
    );
    assert_eq!(times, mtimes(&out), "a file was rewritten");
    no_staging(dir.path());
    generate(dir.path(), 0);
    let rust = std::fs::read_to_string(out.join("rust/src/a.rs")).unwrap();
    assert!(rust.contains("size"), "{rust}");
}

#[test]
fn a_read_only_output_dir_fails_the_run_and_changes_nothing() {
    let dir = generated();
    let out = dir.path().join("out");
    let before = tree(&out);
    std::fs::write(dir.path().join("schemas/a.json"), A2).unwrap();
    {
        let _ro = ReadOnly::new(&out);
        let err = generate(dir.path(), 2);
        assert!(err.contains("out"), "{err}");
    }
    assert!(tree_diff(&before, &tree(&out)).is_empty());
}

#[test]
fn a_symlinked_dir_inside_out_is_never_written_through() {
    let dir = generated();
    let out = dir.path().join("out");
    // The crate's src/ replaced by a link to a directory outside --out.
    let outside = dir.path().join("outside");
    std::fs::rename(out.join("rust/src"), &outside).unwrap();
    std::fs::write(outside.join("a.rs"), "mine").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("rust/src")).unwrap();
    let outside_before = tree(&outside);
    let out_before = tree(&out);
    std::fs::write(dir.path().join("schemas/a.json"), A2).unwrap();
    let err = generate(dir.path(), 2);
    assert!(
        err.contains("symbolic link") && err.contains("rust/src"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("a.rs")).unwrap(),
        "mine"
    );
    assert!(tree_diff(&outside_before, &tree(&outside)).is_empty());
    assert!(tree_diff(&out_before, &tree(&out)).is_empty());
    no_staging(dir.path());
}

#[test]
fn a_symlinked_language_dir_is_refused() {
    let dir = generated();
    let out = dir.path().join("out");
    let outside = dir.path().join("outside");
    std::fs::rename(out.join("typescript"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("typescript")).unwrap();
    let before = tree(&outside);
    std::fs::write(dir.path().join("schemas/a.json"), A2).unwrap();
    let err = generate(dir.path(), 2);
    assert!(
        err.contains("out/typescript") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(tree_diff(&before, &tree(&outside)).is_empty());
}

#[test]
fn malicious_manifest_entries_remove_nothing_outside_the_package() {
    let dir = generated();
    let out = dir.path().join("out");
    let outside = dir.path().join("outside");
    write_files(
        dir.path(),
        &[("outside/victim.txt", "keep"), ("out/beside.txt", "keep")],
    );
    std::os::unix::fs::symlink(&outside, out.join("rust/evil")).unwrap();
    let victim = outside.join("victim.txt");
    let manifest = out.join("rust/.ctxgen-manifest");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    for entry in [
        "../beside.txt".to_string(),
        "../../outside/victim.txt".to_string(),
        victim.display().to_string(),
        "evil/victim.txt".to_string(),
        "./evil/victim.txt".to_string(),
        "src/../../beside.txt".to_string(),
        "evil".to_string(),
        ".ctxgen-manifest".to_string(),
        String::new(),
    ] {
        text.push_str(&entry);
        text.push('\n');
    }
    std::fs::write(&manifest, text).unwrap();
    let stderr = generate(dir.path(), 0);
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(
        std::fs::read_to_string(out.join("beside.txt")).unwrap(),
        "keep"
    );
    // The link is the user's: kept, as a link.
    assert!(std::fs::symlink_metadata(out.join("rust/evil"))
        .unwrap()
        .file_type()
        .is_symlink());
    let check = run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--check",
        ],
        0,
    );
    assert!(!check.contains("error"), "{check}");
}

#[test]
fn stale_files_go_and_files_that_are_not_ctxgens_stay() {
    let dir = generated();
    let out = dir.path().join("out");
    write_files(
        &out,
        &[
            ("rust/target/debug/build.log", "user"),
            ("typescript/node_modules/x/index.js", "user"),
            ("python/notes.txt", "user"),
        ],
    );
    let beta = out.join("rust/src/b.rs");
    assert!(beta.is_file());
    let alpha_time = mtimes(&out)["rust/src/a.rs"];
    std::fs::remove_file(dir.path().join("schemas/b.json")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    generate(dir.path(), 0);
    assert!(!beta.exists(), "stale file kept");
    assert!(!out.join("python/src/context_protocols/b.py").exists());
    for f in [
        "rust/target/debug/build.log",
        "typescript/node_modules/x/index.js",
        "python/notes.txt",
    ] {
        assert_eq!(std::fs::read_to_string(out.join(f)).unwrap(), "user", "{f}");
    }
    assert_eq!(
        mtimes(&out)["rust/src/a.rs"],
        alpha_time,
        "an unchanged file was rewritten"
    );
    no_staging(dir.path());
}

#[test]
fn leftovers_of_a_killed_run_are_cleaned_up_and_never_read() {
    let dir = generated();
    let out = dir.path().join("out");
    let before = tree(&out);
    // A staging area without a journal: a run killed before its commit point.
    write_files(
        &out,
        &[(".ctxgen-staging/new/rust/src/a.rs", "half-written")],
    );
    let check = run_code(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--check",
        ],
        0,
    );
    assert!(check.is_empty(), "{check}");
    generate(dir.path(), 0);
    assert!(tree_diff(&before, &tree(&out)).is_empty());
    no_staging(dir.path());
}

#[test]
fn an_interrupted_commit_is_finished_by_the_next_run() {
    let dir = generated();
    let out = dir.path().join("out");
    // Stage a complete new rust directory by hand and commit it with a journal.
    let staged = out.join(".ctxgen-staging/new/rust");
    cli_support::copy_tree(&out.join("rust"), &staged);
    std::fs::write(staged.join("marker.txt"), "new").unwrap();
    let ino = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&staged).unwrap().ino()
    };
    std::fs::write(
        out.join(".ctxgen-staging/journal"),
        format!("ctxgen-journal 1\n{ino} rust\nend\n"),
    )
    .unwrap();
    let check = cli_support::run(
        dir.path(),
        &[
            "generate",
            "--schemas",
            "schemas",
            "--out",
            "out",
            "--check",
        ],
    );
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("interrupted write"));
    ctxgen::output::recover(&out).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("rust/marker.txt")).unwrap(),
        "new"
    );
    no_staging(dir.path());
}

#[test]
fn a_failed_write_leaves_no_output_dir_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new/out");
    let long = "x".repeat(300);
    let files: BTreeMap<String, String> = [
        ("ok.txt".to_string(), "a".to_string()),
        (format!("sub/{long}.txt"), "b".to_string()),
    ]
    .into();
    let err = ctxgen::output::write(&out, &[("rust", &files)])
        .unwrap_err()
        .to_string();
    assert!(err.contains(&long), "{err}");
    assert!(!dir.path().join("new").exists(), "a failed run left output");
}

#[test]
fn a_failed_write_leaves_the_previous_output_intact() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let old: BTreeMap<String, String> = [("a.txt".to_string(), "old".to_string())].into();
    ctxgen::output::write(&out, &[("rust", &old), ("python", &old)]).unwrap();
    let before = tree(&out);
    let new: BTreeMap<String, String> = [("a.txt".to_string(), "new".to_string())].into();
    let bad: BTreeMap<String, String> =
        [(format!("{}.txt", "y".repeat(300)), String::new())].into();
    let err = ctxgen::output::write(&out, &[("rust", &new), ("python", &bad)]).unwrap_err();
    assert!(err.to_string().contains("out/python/yyy"), "{err}");
    assert!(tree_diff(&before, &tree(&out)).is_empty());
}

#[test]
fn paths_that_collide_or_escape_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (paths, why) in [
        (vec!["Types.rs", "types.rs"], "differ only in case"),
        (vec!["a/Mod.rs", "A/mod.rs"], "differ only in case"),
        (vec!["src", "SRC/x.rs"], "directory"),
        (vec!["../x.rs"], "`..`"),
        (vec!["/etc/x"], "absolute"),
        (vec!["a//b"], "empty"),
        (vec!["a\\b"], "`\\`"),
        (vec![".ctxgen-manifest"], "manifest"),
    ] {
        let files: BTreeMap<String, String> = paths
            .iter()
            .map(|p| (p.to_string(), String::new()))
            .collect();
        let err = ctxgen::output::write(&out, &[("rust", &files)])
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{paths:?}: {err}");
        assert!(!out.exists(), "{paths:?}: wrote output");
    }
}

#[test]
fn unchanged_output_is_not_touched_at_all() {
    let dir = generated();
    let out = dir.path().join("out");
    let before = mtimes(&out);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let stdout = cli_support::run(
        dir.path(),
        &["generate", "--schemas", "schemas", "--out", "out"],
    )
    .stdout;
    assert!(String::from_utf8_lossy(&stdout).contains("up to date: nothing written"));
    assert_eq!(before, mtimes(&out));
    let entry = tree(&out).remove("rust/Cargo.toml");
    assert!(matches!(entry, Some(Entry::File(_))));
}

#[test]
fn a_generated_directory_may_become_a_file_unless_it_holds_user_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let files = |paths: &[&str]| -> BTreeMap<String, String> {
        paths
            .iter()
            .map(|p| (p.to_string(), p.to_string()))
            .collect()
    };
    ctxgen::output::write(&out, &[("rust", &files(&["m/x.rs", "lib.rs"]))]).unwrap();
    ctxgen::output::write(&out, &[("rust", &files(&["m", "lib.rs"]))]).unwrap();
    assert_eq!(std::fs::read_to_string(out.join("rust/m")).unwrap(), "m");
    ctxgen::output::write(&out, &[("rust", &files(&["n/x.rs"]))]).unwrap();
    std::fs::write(out.join("rust/n/mine.txt"), "user").unwrap();
    let before = tree(&out);
    let err = ctxgen::output::write(&out, &[("rust", &files(&["n"]))])
        .unwrap_err()
        .to_string();
    assert!(err.contains("rust/n is a directory"), "{err}");
    assert!(tree_diff(&before, &tree(&out)).is_empty());
}
