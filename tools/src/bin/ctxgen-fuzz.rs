//! ctxgen's mutation fuzzer: mutates real-world schemas into hostile ones, runs the release
//! `ctxgen generate` on each in a supervised child process (10 s limit, killed when over) and
//! classifies the result (ok, clean error, bad exit, panic, crash, hang, escape); build-checks a
//! sample of the generated packages (cargo check, tsc --strict, Python import + mypy --strict);
//! replays and minimizes failures into fixtures under `tests/hostile/`. See `docs/fuzzing.md`.

#[allow(dead_code)]
mod corpus;
mod fuzz;

use std::path::PathBuf;

use clap::Parser;

use fuzz::campaign;

#[derive(Parser)]
#[command(name = "ctxgen-fuzz", about = "Mutation fuzzer for ctxgen generate")]
struct Args {
    /// Mutants to run
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Seed of the run (mutant i gets its own seed from it)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generations run side by side
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Build-check up to N of the mutants that generated, spread over the run
    #[arg(long, default_value_t = 0)]
    build_sample: usize,
    /// Packages per build batch
    #[arg(long, default_value_t = 100)]
    batch: usize,
    /// The CI run: 200 mutants, 2 jobs, 8 build checks; exits 1 on a generator failure
    #[arg(long)]
    smoke: bool,
    /// Folder with schemastore/ and json-schema-test-suite/
    #[arg(long, default_value = "../shared/corpus")]
    corpus: PathBuf,
    /// Scratch folder (emptied first)
    #[arg(long, default_value = "target/fuzz")]
    work: PathBuf,
    /// JSONL log of failures
    #[arg(long, default_value = "target/fuzz-failures.jsonl")]
    log: PathBuf,
    /// Regenerate one mutant by its seed and run it
    #[arg(long, value_name = "SEED")]
    replay: Option<u64>,
    /// With --replay: write the mutant's schema folder here
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// With --replay: also build-check its output
    #[arg(long)]
    build: bool,
    /// Minimize one mutant by its seed and write it as a fixture
    #[arg(long, value_name = "SEED")]
    minimize: Option<u64>,
    /// With --minimize: the failure to keep: a class (panic, crash, hang, bad-exit, escape)
    /// or `build:<check>` [default: what the mutant does now]
    #[arg(long)]
    target: Option<String>,
    /// With --minimize: the fixture's name [default: fuzz-<class>-<seed>]
    #[arg(long)]
    name: Option<String>,
    /// With --minimize: time budget in seconds
    #[arg(long, default_value_t = 900)]
    budget: u64,
    /// Run every fixture: generation against its expectation, then the build checks
    #[arg(long)]
    fixtures: bool,
    /// The fixtures folder
    #[arg(long, default_value = "tests/hostile")]
    fixtures_dir: PathBuf,
    /// With --fixtures: do not build-check fixtures whose schemas exceed 256 KiB (the CI run)
    #[arg(long)]
    quick: bool,
}

fn main() {
    let mut a = Args::parse();
    if a.smoke {
        a.count = 200;
        a.jobs = a.jobs.max(2);
        a.build_sample = 8;
    }
    let exe = std::env::current_exe()
        .expect("exe")
        .with_file_name(format!("ctxgen{}", std::env::consts::EXE_SUFFIX));
    if !exe.is_file() {
        fail(&format!(
            "{} not found: build it first (cargo build --release -p ctxgen -p ctxgen-tools --bins)",
            exe.display()
        ));
    }
    fuzz::clean_work(&a.work);
    std::fs::create_dir_all(&a.work)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", a.work.display())));
    let work = std::path::absolute(&a.work).unwrap_or_else(|e| fail(&e.to_string()));
    let ctx = campaign::Context { exe, work };
    let code = if a.fixtures {
        campaign::fixtures(&ctx, &a.fixtures_dir, a.quick)
    } else {
        let seeds = fuzz::seeds::Seeds::load(&a.corpus).unwrap_or_else(|e| fail(&e));
        if let Some(seed) = a.replay {
            campaign::replay(&ctx, &seeds, seed, a.keep.as_deref(), a.build)
        } else if let Some(seed) = a.minimize {
            let opts = campaign::MinimizeOptions {
                target: a.target.clone(),
                name: a.name.clone(),
                budget: a.budget,
                fixtures_dir: a.fixtures_dir.clone(),
            };
            campaign::minimize(&ctx, &seeds, seed, &opts)
        } else {
            let opts = campaign::RunOptions {
                count: a.count,
                seed: a.seed,
                jobs: a.jobs.max(1),
                build_sample: a.build_sample,
                batch: a.batch.max(1),
                log: a.log.clone(),
            };
            campaign::run(&ctx, &seeds, &opts)
        }
    };
    std::process::exit(code);
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}
