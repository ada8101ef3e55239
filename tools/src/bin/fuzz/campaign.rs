//! The four modes: a fuzzing run, replaying one mutant, minimizing one into a fixture, and
//! running the fixtures.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::build::{self, Tools};
use super::exec::{self, Class, Slot};
use super::fixture;
use super::minimize::{self, Minimizer, Target};
use super::report::{self, Record};
use super::seeds::Seeds;
use super::{mutate, Mutant};
use crate::corpus::Verdict;

pub struct Context {
    /// The `ctxgen` binary under test.
    pub exe: PathBuf,
    /// Scratch folder (absolute).
    pub work: PathBuf,
}

pub struct RunOptions {
    pub count: u64,
    pub seed: u64,
    pub jobs: usize,
    pub build_sample: usize,
    pub batch: usize,
    pub log: PathBuf,
}

pub struct MinimizeOptions {
    pub target: Option<String>,
    pub name: Option<String>,
    pub budget: u64,
    pub fixtures_dir: PathBuf,
}

/// Writes and generates one mutant in `slot` (emptied afterwards).
fn run_one(ctx: &Context, slot: &Slot, m: &Mutant, index: u64, package: &str) -> Record {
    slot.clear();
    let outcome = match m.write(&slot.schemas()) {
        Ok(()) => exec::generate(&ctx.exe, slot, package, exec::LIMIT),
        Err(e) => exec::Outcome {
            class: Class::BadExit,
            detail: format!("the fuzzer could not write the mutant: {e}"),
            time: Default::default(),
            code: None,
            stderr: String::new(),
        },
    };
    Record {
        index,
        seed: m.seed,
        origin: m.origin.clone(),
        notes: m.notes.clone(),
        files: m.files.iter().map(|f| f.name.clone()).collect(),
        class: outcome.class,
        detail: outcome.detail,
        secs: outcome.time.as_secs_f64(),
        build: Default::default(),
    }
}

pub fn run(ctx: &Context, seeds: &Seeds, opts: &RunOptions) -> i32 {
    let tools = if opts.build_sample > 0 {
        match Tools::find() {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    } else {
        None
    };
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let records: Mutex<Vec<Record>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..opts.jobs {
            let (next, records) = (&next, &records);
            s.spawn(move || {
                let slot = Slot::new(ctx.work.join(format!("w{w}")));
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= opts.count {
                        break;
                    }
                    let seed = super::mutant_seed(opts.seed, i);
                    // The supervisor outlives any mistake of its own on one mutant.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let m = mutate::mutant(seeds, seed);
                        run_one(ctx, &slot, &m, i, "corpus-f0")
                    }));
                    slot.clear();
                    let Ok(r) = r else {
                        eprintln!(
                            "warning: the fuzzer failed on mutant {i} (seed {seed}); skipped"
                        );
                        continue;
                    };
                    if r.class.is_failure() {
                        eprintln!(
                            "mutant {i} seed {}: {}: {}",
                            r.seed,
                            r.class.name(),
                            r.detail
                        );
                    }
                    let mut all = records.lock().unwrap_or_else(|e| e.into_inner());
                    all.push(r);
                    if all.len() % 100 == 0 {
                        eprintln!(
                            "{} mutant(s), {:.0} s",
                            all.len(),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let mut records = records.into_inner().unwrap_or_else(|e| e.into_inner());
    records.sort_by_key(|r| r.index);
    if let Some(tools) = &tools {
        build_sample(ctx, seeds, &mut records, opts, tools);
    }
    let mut log = String::new();
    for r in &records {
        for line in r.failure_lines() {
            log.push_str(&line);
            log.push('\n');
        }
    }
    if let Some(dir) = opts.log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(&opts.log, log) {
        eprintln!("error: {}: {e}", opts.log.display());
    }
    println!(
        "{}",
        report::summary(&records, start.elapsed().as_secs_f64())
    );
    println!("failures logged to {}", opts.log.display());
    let failed = records
        .iter()
        .any(|r| r.class.is_failure() || matches!(r.build.get("executed"), Some(Verdict::Fail(_))));
    i32::from(failed)
}

/// Regenerates an evenly spread sample of the mutants that generated, as packages
/// `corpus-f<j>`, and build-checks them batch by batch (deleting each batch afterwards). A mutant
/// whose output is too large to check is reported and replaced by the next one that generated,
/// so that `build_sample` packages are checked when there are that many.
fn build_sample(
    ctx: &Context,
    seeds: &Seeds,
    records: &mut [Record],
    opts: &RunOptions,
    tools: &Tools,
) {
    let ok: Vec<usize> = (0..records.len())
        .filter(|i| records[*i].class == Class::Ok)
        .collect();
    let n = opts.build_sample.min(ok.len());
    let chosen: Vec<usize> = (0..n).map(|k| ok[k * ok.len() / n]).collect();
    // The spread sample first, then the others in order, as replacements.
    let mut queue: std::collections::VecDeque<usize> = chosen.iter().copied().collect();
    let taken: std::collections::BTreeSet<usize> = chosen.iter().copied().collect();
    queue.extend(ok.iter().copied().filter(|i| !taken.contains(i)));
    let dir = ctx.work.join("build");
    let mut checked = 0;
    while checked < n && !queue.is_empty() {
        let mut batch = Vec::new();
        let mut live = Vec::new();
        while live.len() < opts.batch.min(n - checked) {
            let Some(ri) = queue.pop_front() else { break };
            let j = batch.len();
            batch.push(ri);
            let m = mutate::mutant(seeds, records[ri].seed);
            let slot = Slot::with_out(ctx.work.join("gen"), dir.join(format!("f{j}")));
            let r = run_one(ctx, &slot, &m, records[ri].index, &format!("corpus-f{j}"));
            super::wipe(&slot.dir);
            let size = dir_size(&dir.join(format!("f{j}")));
            if r.class == Class::Ok && size > MAX_BUILD_BYTES {
                // A checker has no time limit of its own (mypy took over an hour on 30 MB).
                eprintln!(
                    "mutant {}: output of {} MB not build-checked",
                    r.index,
                    size / 1_000_000
                );
                records[ri].build.insert(
                    "too-large",
                    Verdict::Fail(format!("{} MB of output, not checked", size / 1_000_000)),
                );
                super::wipe(&dir.join(format!("f{j}")));
            } else if r.class == Class::Ok {
                live.push(j);
            } else {
                eprintln!(
                    "warning: mutant {} did not generate again ({}: {})",
                    r.index,
                    r.class.name(),
                    r.detail
                );
            }
        }
        eprintln!("build check of {} package(s)", live.len());
        checked += live.len();
        for (j, verdicts) in build::check(&dir, &live, tools, None) {
            records[batch[j]].build = verdicts;
        }
        for j in &live {
            super::wipe(&dir.join(format!("f{j}")));
        }
    }
}

/// Packages with more generated code than this are not build-checked (the checkers have no time
/// limit, and the long-chain and huge-enum fixtures cover that ground).
const MAX_BUILD_BYTES: u64 = 3_000_000;

fn dir_size(p: &Path) -> u64 {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| dir_size(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

pub fn replay(ctx: &Context, seeds: &Seeds, seed: u64, keep: Option<&Path>, build: bool) -> i32 {
    let m = mutate::mutant(seeds, seed);
    println!("seed {seed}: from {}", m.origin);
    for n in &m.notes {
        println!("  {n}");
    }
    println!(
        "  files: {:?}",
        m.files.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
    if let Some(dir) = keep {
        if let Err(e) = m.write(dir) {
            eprintln!("error: {}: {e}", dir.display());
            return 2;
        }
        println!("schemas written to {}", dir.display());
    }
    let dir = ctx.work.join("build");
    let slot = Slot::with_out(ctx.work.join("replay"), dir.join("f0"));
    let r = run_one(ctx, &slot, &m, 0, "corpus-f0");
    println!("{} in {:.2} s: {}", r.class.name(), r.secs, r.detail);
    if build && r.class == Class::Ok {
        let tools = match Tools::find() {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        };
        for (check, v) in build::check(&dir, &[0], &tools, None)
            .remove(&0)
            .unwrap_or_default()
        {
            println!("{check}: {v:?}");
        }
    }
    i32::from(r.class.is_failure())
}

pub fn minimize(ctx: &Context, seeds: &Seeds, seed: u64, opts: &MinimizeOptions) -> i32 {
    let m = mutate::mutant(seeds, seed);
    let tools = Tools::find().ok();
    let slot = Slot::new(ctx.work.join("first"));
    let first = run_one(ctx, &slot, &m, 0, "corpus-f0");
    super::wipe(&slot.dir);
    let target = match opts.target.as_deref() {
        Some(t) if t.starts_with("build:") => Target::Build(t["build:".len()..].to_string()),
        Some(t) => match Class::parse(t) {
            Some(c) => Target::Gen(c, String::new()),
            None => {
                eprintln!("error: unknown --target {t}");
                return 2;
            }
        },
        None if first.class.is_failure() => Target::Gen(first.class, String::new()),
        None => {
            eprintln!(
                "error: mutant {seed} does not fail ({}); give --target build:<check> for a build failure",
                first.class.name()
            );
            return 1;
        }
    };
    let target = match target {
        Target::Gen(Class::Panic, _) => {
            Target::Gen(Class::Panic, minimize::panic_site(&first.detail))
        }
        t => t,
    };
    let mut min = Minimizer {
        exe: ctx.exe.clone(),
        work: ctx.work.clone(),
        target: target.clone(),
        tools: tools.as_ref(),
        deadline: minimize::deadline(opts.budget),
        max_trials: 5_000,
        trials: 0,
        detail: String::new(),
    };
    if !min.holds(&m) {
        eprintln!(
            "error: mutant {seed} does not reproduce {}",
            target.describe()
        );
        return 1;
    }
    let small = min.run(m.clone());
    let name = opts
        .name
        .clone()
        .unwrap_or_else(|| format!("fuzz-{}-{seed}", target.describe().replace([' ', ':'], "-")));
    let description = format!(
        "Found by ctxgen-fuzz (seed {seed}, from {}), minimized: {}: {}",
        m.origin,
        target.describe(),
        min.detail
    );
    match minimize::write_fixture(&opts.fixtures_dir, &name, &small, &description) {
        Ok(dir) => {
            println!(
                "{} trial(s), size {} -> {}; fixture {}",
                min.trials,
                minimize::size(&m),
                minimize::size(&small),
                dir.display()
            );
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// Schemas above this size are not build-checked by `--fixtures --quick` (the long chains: their
/// builds take minutes; generation is still checked).
const QUICK_BUILD_LIMIT: usize = 256 * 1024;

pub fn fixtures(ctx: &Context, root: &Path, quick: bool) -> i32 {
    let all = match fixture::load_all(root) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let known = fixture::known_failing(root);
    let dir = ctx.work.join("build");
    let mut problems: Vec<Vec<String>> = Vec::new();
    let mut live = Vec::new();
    let mut unbuilt = Vec::new();
    for (j, fx) in all.iter().enumerate() {
        let slot = Slot::with_out(ctx.work.join("fx"), dir.join(format!("f{j}")));
        slot.clear();
        let mut p = Vec::new();
        if let Err(e) = fx.write_schemas(&slot.schemas()) {
            p.push(format!("cannot write its schemas: {e}"));
        } else {
            let limit = fx.time_limit.map_or(exec::LIMIT, Duration::from_secs);
            let o = exec::generate(&ctx.exe, &slot, &format!("corpus-f{j}"), limit);
            let run = fixture::Run {
                code: o.code,
                timed_out: o.class == Class::Hang,
                stderr: o.stderr.clone(),
            };
            p.extend(fixture::judge(fx, &run, &slot.out()));
            if o.class == Class::Escape {
                p.push(o.detail.clone());
            }
            // Built even when the output holds a forbidden string: the import shows whether
            // it runs.
            let size: usize = fx.files.values().map(Vec::len).sum();
            if fx.build && o.class == Class::Ok && quick && size > QUICK_BUILD_LIMIT {
                unbuilt.push(fx.name.clone());
            } else if fx.build && o.class == Class::Ok {
                live.push(j);
            }
        }
        eprintln!(
            "{}: {}",
            fx.name,
            if p.is_empty() {
                "generation as expected"
            } else {
                "not as expected"
            }
        );
        super::wipe(&slot.dir);
        problems.push(p);
    }
    if !live.is_empty() {
        match Tools::find() {
            Ok(tools) => {
                for (j, verdicts) in build::check(&dir, &live, &tools, None) {
                    for (check, v) in verdicts {
                        if let Verdict::Fail(m) = v {
                            problems[j].push(format!("{check}: {m}"));
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    super::wipe(&dir);
    let mut unexpected = 0;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "| fixture | expected | result | KNOWN_FAILING |\n|---|---|---|---|"
    );
    let mut stale = Vec::new();
    for (fx, p) in all.iter().zip(&problems) {
        let listed = known.contains_key(&fx.name);
        if listed && p.is_empty() && !unbuilt.contains(&fx.name) {
            stale.push(fx.name.clone());
        }
        let expected = match fx.expect {
            fixture::Outcome::Generates if fx.build => "generates, builds",
            fixture::Outcome::Generates => "generates",
            fixture::Outcome::CleanError => "clean error",
        };
        let result = if p.is_empty() {
            "as expected".to_string()
        } else {
            p.join("; ").replace('|', "\\|")
        };
        let result: String = result.chars().take(300).collect();
        let _ = writeln!(
            out,
            "| {} | {expected} | {result} | {} |",
            fx.name,
            if listed { "yes" } else { "" }
        );
        if !p.is_empty() && !listed {
            unexpected += 1;
        }
    }
    let _ = writeln!(
        out,
        "\n{} fixture(s), {} not as expected and not in KNOWN_FAILING",
        all.len(),
        unexpected
    );
    if !unbuilt.is_empty() {
        let _ = writeln!(
            out,
            "generation checked, build not (--quick, schemas over 256 KiB): {}",
            unbuilt.join(", ")
        );
    }
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "listed in KNOWN_FAILING but as expected now: {}",
            stale.join(", ")
        );
    }
    i32::from(unexpected > 0 || !stale.is_empty())
}
