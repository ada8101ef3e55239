//! Generation speed: all three languages for `schemas/` and for the ten largest SchemaStore
//! files, next to typify 0.8 (Rust only) on the same files in the same run.
//!
//! `cargo bench --bench generate [-- <schemastore dir>]`

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ctxgen::{Config, Lang};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> Option<T>) -> Option<Duration> {
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed());
    }
    Some(median(times))
}

fn ctxgen(config: &Config) -> Option<usize> {
    config.render().ok().map(|r| {
        r.packages
            .iter()
            .map(|p| p.1.values().map(String::len).sum::<usize>())
            .sum()
    })
}

fn typify(file: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(file).ok()?;
    let schema: schemars08::schema::RootSchema = serde_json::from_str(&text).ok()?;
    let out = catch_unwind(AssertUnwindSafe(|| {
        let mut space =
            typify::TypeSpace::new(typify::TypeSpaceSettings::default().with_struct_builder(false));
        space.add_root_schema(schema).ok()?;
        let file = syn::parse2::<syn::File>(space.to_stream()).ok()?;
        Some(prettyplease::unparse(&file).len())
    }));
    out.ok().flatten()
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("fails".into(), |d| {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    })
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let corpus = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus/schemastore"));
    let all = [Lang::Rust, Lang::TypeScript, Lang::Python];
    let mut config = Config::new();
    config.schemas_dir("schemas").languages(&all);
    println!("| input | size | ctxgen, 3 languages | typify 0.8, Rust | ratio |");
    println!("|---|---:|---:|---:|---:|");
    let ours = time(20, || ctxgen(&config));
    println!(
        "| schemas/ (6 files) | {} KB | {} | n/a | |",
        dir_size(Path::new("schemas")) / 1024,
        ms(ours)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    for file in files.iter().take(10) {
        let mut c = Config::new();
        c.schema_files(vec![file.clone()]).languages(&all);
        let ours = time(5, || ctxgen(&c));
        let theirs = time(5, || typify(file));
        let ratio = match (ours, theirs) {
            (Some(a), Some(b)) => format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64()),
            _ => String::new(),
        };
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        let name = file.file_name().unwrap().to_string_lossy();
        println!(
            "| {name} | {} KB | {} | {} | {ratio} |",
            size / 1024,
            ms(ours),
            ms(theirs)
        );
    }
    println!(
        "\nratio = ctxgen time (three languages) / typify time (Rust only); below 1 is faster."
    );
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
