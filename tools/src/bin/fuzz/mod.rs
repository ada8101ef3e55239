//! The mutation fuzzer behind `ctxgen-fuzz`: seeds, mutations, running the generator under a
//! supervisor, build checks of what it wrote, the failure log and the minimizer.

pub mod build;
pub mod campaign;
pub mod exec;
pub mod fixture;
pub mod hostile;
pub mod minimize;
pub mod mutate;
pub mod report;
pub mod seeds;
pub mod tree;

use serde_json::Value;

/// splitmix64: a tiny, fully specified generator, so that a mutant's seed regenerates it
/// bit for bit on any platform and any version of the fuzzer's dependencies.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The seed of mutant `index` of a run with seed `base`.
pub fn mutant_seed(base: u64, index: u64) -> u64 {
    Rng::new(base ^ index.wrapping_mul(0xD134_2543_DE82_EF95)).next_u64()
}

/// One schema file of a mutant.
#[derive(Debug, Clone)]
pub struct SchemaFile {
    /// Path relative to the schema directory (may contain `/`).
    pub name: String,
    pub doc: Doc,
}

#[derive(Debug, Clone)]
pub enum Doc {
    /// A schema (may hold `$synthesize` markers, expanded when written).
    Json(Value),
    /// Bytes written as they are (malformed JSON and the like).
    Raw(Vec<u8>),
}

/// A generated input: a schema directory and how it came about.
#[derive(Debug, Clone)]
pub struct Mutant {
    pub seed: u64,
    /// Where the first file came from (`schemastore/x.json`, `suite/draft7/allOf.json#3`).
    pub origin: String,
    /// The mutations applied, in order.
    pub notes: Vec<String>,
    pub files: Vec<SchemaFile>,
}

impl Mutant {
    /// Writes the schema directory (which must not exist yet).
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for f in &self.files {
            let path = dir.join(&f.name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            match &f.doc {
                Doc::Json(v) => std::fs::write(path, fixture::render(v))?,
                Doc::Raw(b) => std::fs::write(path, b)?,
            }
        }
        Ok(())
    }
}

/// Removes a directory tree if it exists, ignoring errors (the next run starts clean anyway).
pub fn wipe(dir: &std::path::Path) {
    if dir.exists() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Empties the scratch folder except the build checks' caches (the Rust target folder, the
/// check crate with its lock file, the mypy cache), which only make later runs faster.
pub fn clean_work(work: &std::path::Path) {
    let keep = ["rust-target", "build/rust-check", "build/mypy-cache"];
    for sub in ["", "build"] {
        let Ok(entries) = std::fs::read_dir(work.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let rel = std::path::Path::new(sub).join(e.file_name());
            let rel = rel.to_string_lossy();
            if keep
                .iter()
                .any(|k| *k == rel || k.starts_with(&format!("{rel}/")))
            {
                continue;
            }
            let p = e.path();
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(&p);
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
}
