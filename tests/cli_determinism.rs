//! Output is a function of the schemas alone: SchemaStore files generated with the schema
//! directory spelled four ways (relative, absolute, with `./` and `x/../`, through a symbolic
//! link) and named as a file list in four orders (with mixed spellings) give byte-identical
//! trees. The files are listed in `tests/determinism-files.txt` and read from the corpus
//! (`CTXGEN_CORPUS`, default `../shared/corpus/schemastore`); eight runs of 50 files take about
//! 17 s in a debug build.

#![cfg(unix)]

mod cli_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cli_support::{run_code, tree, tree_diff, Entry};

fn corpus() -> PathBuf {
    let dir = std::env::var_os("CTXGEN_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/schemastore"),
        PathBuf::from,
    );
    assert!(
        dir.is_dir(),
        "the SchemaStore corpus is not at {} (set CTXGEN_CORPUS)",
        dir.display()
    );
    dir
}

fn listed(n: usize) -> Vec<String> {
    let list = include_str!("determinism-files.txt");
    let files: Vec<String> = list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert!(files.len() >= n, "the list has {} files", files.len());
    files.into_iter().take(n).collect()
}

fn generate(cwd: &Path, out: &str, args: &[String]) -> BTreeMap<String, Entry> {
    let mut all = vec!["generate".to_string(), "--out".into(), out.into()];
    all.extend(args.iter().cloned());
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    run_code(cwd, &all, 0);
    let t = tree(&cwd.join(out));
    assert!(t.len() > 20, "too little output: {}", t.len());
    t
}

/// A fixed permutation (a linear congruential generator with a fixed seed).
fn shuffled<T: Clone>(items: &[T], mut seed: u64) -> Vec<T> {
    let mut v = items.to_vec();
    for i in (1..v.len()).rev() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, (seed >> 33) as usize % (i + 1));
    }
    v
}

fn check(n: usize) {
    let corpus = corpus();
    let names = listed(n);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("schemas")).unwrap();
    std::fs::create_dir_all(d.join("x")).unwrap();
    for f in &names {
        std::fs::copy(corpus.join(f), d.join("schemas").join(f)).unwrap();
    }
    std::os::unix::fs::symlink(d.join("schemas"), d.join("link")).unwrap();
    let abs = d.join("schemas").display().to_string();

    let dir_spellings = [
        "schemas".to_string(),
        abs.clone(),
        "./x/../schemas".into(),
        "link".into(),
    ];
    let mut trees = Vec::new();
    for (i, s) in dir_spellings.iter().enumerate() {
        let t = generate(d, &format!("out-dir-{i}"), &["--schemas".into(), s.clone()]);
        trees.push((format!("--schemas {s}"), t));
    }
    // File lists: sorted, reversed, shuffled twice; each file spelled one of four ways.
    let spell = |i: usize, f: &str| match i % 4 {
        0 => format!("schemas/{f}"),
        1 => format!("{abs}/{f}"),
        2 => format!("./x/../schemas/{f}"),
        _ => format!("link/{f}"),
    };
    let mut orders = vec![names.clone(), names.iter().rev().cloned().collect()];
    orders.push(shuffled(&names, 7));
    orders.push(shuffled(&names, 1234));
    for (i, order) in orders.iter().enumerate() {
        let files: Vec<String> = order
            .iter()
            .enumerate()
            .map(|(j, f)| spell(i + j, f))
            .collect();
        let t = generate(d, &format!("out-files-{i}"), &files);
        trees.push((format!("file list {i} ({}, …)", files[0]), t));
    }
    let (first_name, first) = &trees[0];
    for (name, t) in &trees[1..] {
        let diff = tree_diff(first, t);
        assert!(diff.is_empty(), "{first_name} vs {name}: {diff:?}");
    }
    // No path of the machine reaches the output.
    for (rel, e) in first {
        if let Entry::File(bytes) = e {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.contains(&abs), "{rel} names {abs}");
            assert!(
                !text.contains(d.to_str().unwrap()),
                "{rel} names {}",
                d.display()
            );
        }
    }
}

#[test]
fn fifty_schemastore_files_are_byte_identical_however_named() {
    check(50);
}
