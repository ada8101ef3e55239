//! Hostile-input fixtures (`tests/hostile/<name>/expect.json`): each schema folder is generated
//! by the `ctxgen` binary in a child process (a stack overflow or a hang cannot take the test
//! down) and the result must match the fixture's expectation: it generates and no output file
//! contains the forbidden strings, or it exits 2 with a message that contains the given text.
//! Fixtures listed in `tests/hostile/KNOWN_FAILING` may fail (and must: a listed fixture that
//! passes is reported, so the list stays current); entries marked `build` fail only the build
//! checks, so here they must pass. The build checks of the output (cargo check,
//! tsc, Python import, mypy) are `ctxgen-fuzz --fixtures`; see docs/fuzzing.md.

#[path = "../tools/src/bin/fuzz/fixture.rs"]
mod fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Time allowed to a fixture that must pass (generous: this is the unoptimized binary under a
/// parallel test run; speed is measured by the fuzzer and the benchmarks, not here).
const LIMIT: Duration = Duration::from_secs(120);
/// Time allowed to a fixture listed as known to fail (it only shows whether it still fails).
const KNOWN_LIMIT: Duration = Duration::from_secs(10);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

/// Runs the generator on the fixture; returns what is wrong (empty: as expected).
fn check(fx: &fixture::Fixture, limit: Duration) -> Vec<String> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let schemas = tmp.path().join("schemas");
    let out = tmp.path().join("out");
    let cwd = tmp.path().join("cwd");
    let err = tmp.path().join("stderr");
    if let Err(e) = fx.write_schemas(&schemas) {
        return vec![format!("cannot write its schemas: {e}")];
    }
    std::fs::create_dir_all(&cwd).expect("cwd");
    let exe = env!("CARGO_BIN_EXE_ctxgen");
    // Memory and file-size limits, so that a runaway child cannot take the machine down.
    let mut cmd = if cfg!(unix) {
        let mut c = Command::new("/bin/sh");
        c.arg("-c")
            .arg("ulimit -v 4194304 2>/dev/null; ulimit -f 2097152 2>/dev/null; exec \"$0\" \"$@\"")
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(["generate", "--schemas"])
        .arg(&schemas)
        .arg("--out")
        .arg(&out)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(&err).expect("stderr file"),
        ));
    let mut child = cmd.spawn().expect("start ctxgen");
    let start = Instant::now();
    let (code, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break (status.code(), false);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = String::from_utf8_lossy(&std::fs::read(&err).unwrap_or_default()).into_owned();
    let run = fixture::Run {
        code,
        timed_out,
        stderr,
    };
    let mut problems = fixture::judge(fx, &run, &out);
    let strays: Vec<String> = std::fs::read_dir(tmp.path())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !["schemas", "out", "cwd", "stderr"].contains(&n.as_str()))
        .chain(
            std::fs::read_dir(&cwd)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| format!("cwd/{}", e.file_name().to_string_lossy())),
        )
        .collect();
    if !strays.is_empty() {
        problems.push(format!("wrote outside its output directory: {strays:?}"));
    }
    problems
}

#[test]
fn hostile_fixtures_meet_their_expectations() {
    let fixtures = fixture::load_all(&root()).expect("fixtures");
    assert!(
        fixtures.len() >= 20,
        "expected the committed fixtures, found {}",
        fixtures.len()
    );
    // Entries marked `build` fail only the build checks, which this test does not run.
    let known: Vec<String> = fixture::known_failing(&root())
        .into_iter()
        .filter(|(_, k)| *k == fixture::Known::Generation)
        .map(|(n, _)| n)
        .collect();
    for name in fixture::known_failing(&root()).keys() {
        assert!(
            fixtures.iter().any(|f| &f.name == name),
            "KNOWN_FAILING lists {name}, which is not a fixture"
        );
    }
    let next = Mutex::new(fixtures.iter());
    let results: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(fx) = next.lock().unwrap().next() else {
                    break;
                };
                let limit = if known.contains(&fx.name) {
                    KNOWN_LIMIT
                } else {
                    LIMIT
                };
                let problems = check(fx, limit);
                results.lock().unwrap().push((fx.name.clone(), problems));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort();
    let mut report = Vec::new();
    for (name, problems) in &results {
        let listed = known.contains(name);
        match (problems.is_empty(), listed) {
            (false, false) => report.push(format!("{name}: {}", problems.join("; "))),
            (true, true) => report.push(format!(
                "{name}: passes now; remove it from tests/hostile/KNOWN_FAILING"
            )),
            _ => {}
        }
    }
    assert!(
        report.is_empty(),
        "{} fixture(s) not as recorded:\n{}",
        report.len(),
        report.join("\n")
    );
}
