//! Running `ctxgen generate` on one schema directory as a supervised child process: a time
//! limit (killed when over), memory and file-size limits, and checks that it wrote nothing
//! outside its output directory and ran nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctxgen::output::STAGING;

use super::hostile::SENTINEL;

/// The longest one generation (all three languages) may take.
pub const LIMIT: Duration = Duration::from_secs(10);

/// How a generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Ok,
    /// Exit 2 with an `error:` message.
    CleanError,
    /// Any other non-zero exit (or exit 2 without a message).
    BadExit,
    Panic,
    /// Killed by a signal (stack overflow, out of memory, ...).
    Crash,
    /// Over the time limit.
    Hang,
    /// Wrote outside its output directory, or something ran the sentinel payload.
    Escape,
}

impl Class {
    pub const ALL: [Class; 7] = [
        Class::Ok,
        Class::CleanError,
        Class::BadExit,
        Class::Panic,
        Class::Crash,
        Class::Hang,
        Class::Escape,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Ok => "ok",
            Class::CleanError => "clean-error",
            Class::BadExit => "bad-exit",
            Class::Panic => "panic",
            Class::Crash => "crash",
            Class::Hang => "hang",
            Class::Escape => "escape",
        }
    }

    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == s)
    }

    /// A failure of the generator itself (the smoke run fails on these).
    pub fn is_failure(self) -> bool {
        !matches!(self, Class::Ok | Class::CleanError)
    }
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub class: Class,
    /// The first line that says what went wrong (the error, the panic, the signal).
    pub detail: String,
    pub time: Duration,
    /// The exit code (`None` when killed).
    pub code: Option<i32>,
    /// The start of what it printed to stderr.
    pub stderr: String,
}

/// The folder layout of one run: `<slot>/schemas` (input), `<slot>/out` (output),
/// `<slot>/cwd` (the child's working directory, must stay empty), `<slot>/stderr`.
pub struct Slot {
    pub dir: PathBuf,
    /// `<slot>/out` unless given elsewhere (the build checks want `<work>/f<i>`).
    out: PathBuf,
}

impl Slot {
    pub fn new(dir: PathBuf) -> Slot {
        let out = dir.join("out");
        Slot { dir, out }
    }
    pub fn with_out(dir: PathBuf, out: PathBuf) -> Slot {
        Slot { dir, out }
    }
    pub fn schemas(&self) -> PathBuf {
        self.dir.join("schemas")
    }
    pub fn out(&self) -> PathBuf {
        self.out.clone()
    }
    fn cwd(&self) -> PathBuf {
        self.dir.join("cwd")
    }
    fn stderr(&self) -> PathBuf {
        self.dir.join("stderr")
    }

    /// Empties the slot and its output (keeps the folder).
    pub fn clear(&self) {
        super::wipe(&self.dir);
        super::wipe(&self.out);
        let _ = std::fs::create_dir_all(&self.dir);
    }
}

/// Runs the generator on `slot/schemas` into `slot/out` as package `package`.
pub fn generate(exe: &Path, slot: &Slot, package: &str, limit: Duration) -> Outcome {
    let _ = std::fs::create_dir_all(slot.cwd());
    let before = listing(&slot.schemas());
    let start = Instant::now();
    let outcome = supervise(exe, slot, package, limit);
    let time = start.elapsed();
    let stderr = read_start(&slot.stderr(), 64 * 1024);
    let (class, detail, code) = match outcome {
        Ok(r) => r,
        Err(e) => (
            Class::BadExit,
            format!("could not run the generator: {e}"),
            None,
        ),
    };
    // A run killed part-way (over the time limit, or by a signal) leaves its staging folder
    // (`OUT/.ctxgen-staging`, which the next run clears); that is not a write outside `OUT`.
    let killed = code.is_none();
    let (class, detail) = match escaped(slot, &before, killed) {
        Some(what) => (Class::Escape, what),
        None => (class, detail),
    };
    Outcome {
        class,
        detail,
        time,
        code,
        stderr,
    }
}

fn supervise(
    exe: &Path,
    slot: &Slot,
    package: &str,
    limit: Duration,
) -> std::io::Result<(Class, String, Option<i32>)> {
    let log = std::fs::File::create(slot.stderr())?;
    let mut cmd = limited(exe);
    cmd.args([
        "generate",
        "--no-project",
        "--package-name",
        package,
        "--schemas",
    ])
    .arg(slot.schemas())
    .arg("--out")
    .arg(slot.out())
    .current_dir(slot.cwd())
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::from(log));
    let mut child = cmd.spawn()?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok((Class::Hang, format!("over {} s", limit.as_secs_f64()), None));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = read_start(&slot.stderr(), 64 * 1024);
    let line = |pred: &dyn Fn(&str) -> bool| {
        err.lines()
            .find(|l| pred(l))
            .map(|l| l.chars().take(400).collect::<String>())
    };
    if let Some(sig) = signal(&status) {
        let why = line(&|l| l.contains("overflowed its stack") || l.contains("memory allocation"))
            .unwrap_or_default();
        let detail = format!("signal {sig} {why}").trim().to_string();
        return Ok((Class::Crash, detail, None));
    }
    let code = status.code().unwrap_or(-1);
    if code == 101 || err.contains("panicked") {
        let panic = line(&|l| l.contains("panicked")).unwrap_or_else(|| format!("exit {code}"));
        // The location and message (the next line) identify a panic better than the thread.
        let msg = err
            .lines()
            .skip_while(|l| !l.contains("panicked"))
            .nth(1)
            .unwrap_or("");
        let detail = format!("{panic} {msg}").trim().to_string();
        return Ok((Class::Panic, detail, Some(code)));
    }
    let (class, detail) = match code {
        0 => (Class::Ok, String::new()),
        2 => match line(&|l| l.starts_with("error")) {
            Some(m) => (Class::CleanError, m),
            None => (
                Class::BadExit,
                format!("exit 2 without a message: {}", first(&err)),
            ),
        },
        c => (Class::BadExit, format!("exit {c}: {}", first(&err))),
    };
    Ok((class, detail, Some(code)))
}

fn first(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(400).collect()
}

/// The command for `exe` under memory (4 GiB) and file size (1 GiB) limits.
pub fn limited(exe: &Path) -> Command {
    if cfg!(unix) && Path::new("/bin/sh").exists() {
        let mut c = Command::new("/bin/sh");
        c.arg("-c")
            .arg("ulimit -v 4194304 2>/dev/null; ulimit -f 2097152 2>/dev/null; exec \"$0\" \"$@\"")
            .arg(exe);
        c
    } else {
        Command::new(exe)
    }
}

#[cfg(unix)]
fn signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

pub fn read_start(path: &Path, max: usize) -> String {
    use std::io::Read;
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(max as u64).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Names (recursively, with sizes) of everything under `dir`.
pub fn listing(dir: &Path) -> BTreeSet<(String, u64)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&p);
            if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                stack.push(p);
            }
            out.insert((rel, meta.map(|m| m.len()).unwrap_or(0)));
        }
    }
    out
}

/// What the generator wrote where it must not: next to its output, in its working directory,
/// into the schemas, or a sentinel file anywhere it could reach.
fn escaped(slot: &Slot, schemas_before: &BTreeSet<(String, u64)>, killed: bool) -> Option<String> {
    let allowed = ["schemas", "out", "cwd", "stderr"];
    let mut strays: Vec<String> = std::fs::read_dir(&slot.dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !allowed.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    strays.extend(
        listing(&slot.cwd())
            .into_iter()
            .map(|(n, _)| format!("cwd/{n}")),
    );
    strays.extend(
        std::fs::read_dir(slot.out())
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !["rust", "typescript", "python"].contains(&n.as_str()))
                    .filter(|n| !(killed && n == STAGING))
                    .map(|n| format!("out/{n}"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
    );
    if listing(&slot.schemas()) != *schemas_before {
        strays.push("a change in the schema directory".into());
    }
    if let Some(s) = sentinel_near(&std::env::current_dir().unwrap_or_default()) {
        strays.push(s);
    }
    (!strays.is_empty()).then(|| format!("wrote outside its output directory: {strays:?}"))
}

/// A sentinel file (`PWNED*`) directly in `dir`, removed once seen so that the next check
/// starts clean.
pub fn sentinel_near(dir: &Path) -> Option<String> {
    let hit = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with(SENTINEL))?;
    let _ = std::fs::remove_file(hit.path());
    Some(hit.path().display().to_string())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A stand-in generator: a shell script that makes `OUT/<staging>` and then runs `rest`.
    fn fake(dir: &Path, staging: &str, rest: &str) -> PathBuf {
        let exe = dir.join("fake-ctxgen");
        let script = format!(
            "#!/bin/sh\nwhile [ \"$1\" != --out ]; do shift; done\nmkdir -p \"$2/{staging}\"\n{rest}\n"
        );
        std::fs::write(&exe, script).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    }

    fn run(name: &str, staging: &str, rest: &str, limit: Duration) -> Outcome {
        let dir = std::env::temp_dir().join(format!("ctxgen-exec-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let exe = fake(&dir, staging, rest);
        let slot = Slot::new(dir.join("slot"));
        slot.clear();
        std::fs::create_dir_all(slot.schemas()).unwrap();
        let o = generate(&exe, &slot, "p", limit);
        let _ = std::fs::remove_dir_all(&dir);
        o
    }

    #[test]
    fn a_run_killed_over_the_limit_is_a_hang_though_its_staging_folder_is_left() {
        let o = run("hang", STAGING, "exec sleep 30", Duration::from_millis(300));
        assert_eq!(o.class, Class::Hang, "{}", o.detail);
    }

    #[test]
    fn a_staging_folder_left_by_a_run_that_exited_is_a_write_outside_its_output() {
        let o = run("exit", STAGING, "exit 0", Duration::from_secs(20));
        assert_eq!(o.class, Class::Escape, "{}", o.detail);
    }

    #[test]
    fn another_folder_left_by_a_killed_run_is_still_a_write_outside_its_output() {
        let o = run(
            "other",
            "stray",
            "exec sleep 30",
            Duration::from_millis(300),
        );
        assert_eq!(o.class, Class::Escape, "{}", o.detail);
    }
}
