//! A run killed (SIGKILL) at a random point of its write phase leaves every language directory
//! exactly old or exactly new; once the next run (here [`ctxgen::output::recover`]) has looked,
//! the whole output is exactly old or exactly new; and the next normal run succeeds.
//!
//! The write phase is slowed down by the test hook `CTXGEN_TEST_WRITE_DELAY_US` (a pause after
//! each file staged and each swap step). Half the kills land at a uniformly random time between
//! the moment the staging area appears and the end of the write phase as a calibration run
//! measured, the other half likewise within the swaps that follow the commit point (the
//! journal), where the languages change one by one.
//! `CTXGEN_KILL_TRIALS` sets the number of trials (default 50); run with `--nocapture` for the
//! figures, and with `--release` to kill the release binary.

#![cfg(unix)]

mod cli_support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{bin, copy_tree, run_code, tree, tree_diff, Entry};

const LANGS: [&str; 3] = ["rust", "typescript", "python"];
const DELAY_US: &str = "4000";
const STAGING: &str = "out/.ctxgen-staging";
const JOURNAL: &str = "out/.ctxgen-staging/journal";

type Tree = BTreeMap<String, Entry>;

/// Two schema sets that differ in every way a run can: a file changed, one added, one removed.
fn schema_sets(d: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for (set, skip) in [
        ("old", "scheduling-context.json"),
        ("new", "paper-context.json"),
    ] {
        std::fs::create_dir_all(d.join(set)).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") && name != skip {
                std::fs::copy(e.path(), d.join(set).join(&name)).unwrap();
            }
        }
    }
    let common = d.join("new/common.json");
    let text = std::fs::read_to_string(&common).unwrap();
    assert!(text.contains("\"title\": \"Common definitions\""));
    std::fs::write(
        &common,
        text.replace(
            "\"title\": \"Common definitions\"",
            "\"title\": \"Common types\"",
        ),
    )
    .unwrap();
}

/// The expected output of a schema set, with a file of the user's that every run must keep.
fn expected(d: &Path, set: &str) -> Tree {
    let out = format!("exp-{set}");
    run_code(d, &["generate", "--schemas", set, "--out", &out], 0);
    std::fs::create_dir_all(d.join(&out).join("rust/target")).unwrap();
    std::fs::write(d.join(&out).join("rust/target/keep.txt"), "user").unwrap();
    tree(&d.join(out))
}

fn sub(t: &Tree, lang: &str) -> Tree {
    let prefix = format!("{lang}/");
    t.iter()
        .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|r| (r.to_string(), v.clone())))
        .collect()
}

/// Starts the slowed-down run on `out` (which holds the old output); returns the child and the
/// time `marker` appeared (None if the run ended first).
fn start(d: &Path, marker: &str) -> (std::process::Child, Option<Instant>) {
    let mut child = Command::new(bin())
        .current_dir(d)
        .args(["generate", "--schemas", "new", "--out", "out"])
        .env("CTXGEN_TEST_WRITE_DELAY_US", DELAY_US)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = d.join(marker);
    loop {
        if marker.exists() {
            return (child, Some(Instant::now()));
        }
        if child.try_wait().unwrap().is_some() {
            return (child, None);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn fresh_out(d: &Path) {
    let out = d.join("out");
    if out.exists() {
        std::fs::remove_dir_all(&out).unwrap();
    }
    copy_tree(&d.join("exp-old"), &out);
}

#[test]
fn a_kill_during_the_write_phase_leaves_old_or_new_output() {
    let trials: usize = std::env::var("CTXGEN_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    schema_sets(d);
    let old = expected(d, "old");
    let new = expected(d, "new");
    assert!(!tree_diff(&old, &new).is_empty());
    for lang in LANGS {
        assert!(
            !tree_diff(&sub(&old, lang), &sub(&new, lang)).is_empty(),
            "{lang} unchanged"
        );
    }

    // Calibration: how long the write phase lasts, and its last part, the swaps after the
    // commit point (the journal).
    let mut phases = Vec::new();
    for marker in [STAGING, JOURNAL] {
        fresh_out(d);
        let (mut child, t0) = start(d, marker);
        let t0 = t0.expect("the run reached its write phase");
        assert!(child.wait().unwrap().success());
        phases.push(t0.elapsed());
        assert!(tree_diff(&new, &tree(&d.join("out"))).is_empty());
    }
    let (write_phase, swap_phase) = (phases[0], phases[1]);

    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let (mut all_old, mut mixed, mut all_new, mut finished) = (0, 0, 0, 0);
    let (mut recovered_old, mut recovered_new) = (0, 0);
    for trial in 0..trials {
        fresh_out(d);
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // Odd trials kill anywhere in the write phase, even ones during the swaps.
        let (marker, phase) = if trial % 2 == 1 {
            (STAGING, write_phase)
        } else {
            (JOURNAL, swap_phase)
        };
        let at = phase.mul_f64((seed % 1000) as f64 / 1000.0 * 1.05);
        let (mut child, t0) = start(d, marker);
        if let Some(t0) = t0 {
            std::thread::sleep(at.saturating_sub(t0.elapsed()));
        }
        let done = child.try_wait().unwrap().is_some();
        child.kill().ok(); // SIGKILL
        child.wait().unwrap();
        if done {
            finished += 1;
        }
        let out = d.join("out");
        // Right after the kill: each language directory is complete, old or new.
        let now = tree(&out);
        let mut states = Vec::new();
        for lang in LANGS {
            let t = sub(&now, lang);
            let state = if tree_diff(&t, &sub(&old, lang)).is_empty() {
                "old"
            } else if tree_diff(&t, &sub(&new, lang)).is_empty() {
                "new"
            } else {
                panic!(
                    "trial {trial} (kill at {at:?}): {lang} is neither old nor new: {:?}",
                    tree_diff(&t, &sub(&new, lang))
                )
            };
            states.push(state);
        }
        for k in now.keys() {
            let top = k.split('/').next().unwrap();
            assert!(
                LANGS.contains(&top) || top == ".ctxgen-staging",
                "stray entry {k}"
            );
        }
        if states.iter().all(|s| *s == "old") {
            all_old += 1;
        } else if states.iter().all(|s| *s == "new") {
            all_new += 1;
        } else {
            mixed += 1;
        }
        // After recovery: the whole output is old or new, and no staging area is left.
        ctxgen::output::recover(&out).unwrap();
        let after = tree(&out);
        if tree_diff(&after, &old).is_empty() {
            recovered_old += 1;
        } else if tree_diff(&after, &new).is_empty() {
            recovered_new += 1;
        } else {
            panic!(
                "trial {trial}: after recovery neither old nor new: {:?}",
                tree_diff(&after, &new)
            );
        }
        // The next normal run succeeds and writes the new output.
        run_code(d, &["generate", "--schemas", "new", "--out", "out"], 0);
        assert!(tree_diff(&new, &tree(&out)).is_empty(), "trial {trial}");
    }
    println!(
        "{trials} kills (write phase {write_phase:?}, swaps {swap_phase:?}; {finished} after the run had ended): right \
         after the kill {all_old} all old, {mixed} mixed (each language complete), {all_new} all \
         new; after recovery {recovered_old} old, {recovered_new} new"
    );
    assert_eq!(recovered_old + recovered_new, trials);
}
