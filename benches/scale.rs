//! Generation time and memory on large schemas.
//!
//! First a table of synthetic schemas with 1,000, 10,000 and 50,000 definitions in a realistic
//! mix (`scale/synthetic.rs`): per size, the time and peak resident memory of building the IR
//! and of rendering each language and all three (in memory, nothing written), each in a fresh
//! process, then the growth between consecutive sizes (5× more definitions should cost about
//! 5× the time and memory; the processor time of the child processes, reading the schema
//! included, is less disturbed by other work on the machine than the wall-clock time). Then hostile inputs: a huge enum, long chains of `$ref`s, `allOf`s
//! and properties. No timing is asserted.
//!
//! `cargo bench --bench scale [-- [--quick] [--synthetic] [N…]]`: `N…` replace the sizes,
//! `--synthetic` skips the hostile inputs, `--quick` is one small size and nothing else (the
//! test command runs it to check that the bench still works). A process that takes longer than
//! `CTXGEN_SCALE_LIMIT` seconds (600 by default) is stopped and reported as such.
//! `-- --emit N FILE` writes the synthetic schema with `N` definitions to `FILE` (for profiling
//! the `ctxgen` binary on it).

#[path = "scale/synthetic.rs"]
mod synthetic;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctxgen::{Config, Lang};
use serde_json::{json, Map, Value};

/// What a child process measures: the IR alone, one language, or all three.
const PARTS: [(&str, &[Lang]); 5] = [
    ("ir", &[]),
    ("rust", &[Lang::Rust]),
    ("typescript", &[Lang::TypeScript]),
    ("python", &[Lang::Python]),
    ("all", &[Lang::Rust, Lang::TypeScript, Lang::Python]),
];

/// The peak resident set of this process in KiB (Linux; `None` elsewhere).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The processor time of this process so far in seconds (user and system; Linux, where the
/// clock ticks 100 times a second; `None` elsewhere).
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}

/// In the child: generates `part` for the schemas in `dir` and prints seconds and peak KiB.
fn child(dir: &str, part: &str) {
    let langs = PARTS.iter().find(|p| p.0 == part).expect("a known part").1;
    let mut config = Config::new();
    config.schemas_dir(dir).languages(langs);
    let start = Instant::now();
    let ok = match langs.is_empty() {
        true => config.ir().map(|_| ()),
        false => config.render().map(|_| ()),
    };
    let secs = start.elapsed().as_secs_f64();
    if let Err(e) = ok {
        println!("error: {e}");
        return;
    }
    let cpu = cpu_secs().unwrap_or(secs);
    println!("{secs} {cpu} {}", peak_rss_kib().unwrap_or(0));
}

/// One measurement: wall-clock seconds, processor seconds (of the whole process) and peak KiB,
/// or why there is none.
type Measure = Result<(f64, f64, u64), String>;

fn measure(dir: &Path, part: &str, limit: Duration) -> Measure {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut proc = Command::new(exe)
        .arg("--child")
        .arg(dir)
        .arg(part)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    while proc.try_wait().map_err(|e| e.to_string())?.is_none() {
        if start.elapsed() > limit {
            let _ = proc.kill();
            let _ = proc.wait();
            return Err(format!("> {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = proc.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let mut next = || words.next().and_then(|w| w.parse::<f64>().ok());
    match (next(), next(), next()) {
        (Some(s), Some(cpu), Some(kib)) => Ok((s, cpu, kib as u64)),
        _ if text.trim().is_empty() => Err(format!("failed ({})", out.status)),
        _ => Err(text.trim().to_string()),
    }
}

fn cell(m: &Measure) -> String {
    match m {
        Ok((s, _, kib)) => format!("{s:.2} s, {} MB", kib / 1024),
        Err(e) => e.clone(),
    }
}

/// The synthetic table: one row per size, then one row of growth per pair of sizes. Whether
/// every measurement succeeded.
fn synthetic_table(sizes: &[usize], limit: Duration) -> bool {
    println!("| definitions | IR | Rust | TypeScript | Python | all three |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let mut rows: Vec<(usize, Vec<Measure>)> = Vec::new();
    for &n in sizes {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let text = synthetic::schema(n).to_string();
        std::fs::write(dir.path().join("synthetic.json"), text).expect("write");
        let row: Vec<Measure> = PARTS
            .iter()
            .map(|p| measure(dir.path(), p.0, limit))
            .collect();
        let cells: Vec<String> = row.iter().map(cell).collect();
        println!("| {n} | {} |", cells.join(" | "));
        rows.push((n, row));
    }
    for pair in rows.windows(2) {
        let ((a, ra), (b, rb)) = (&pair[0], &pair[1]);
        let cells: Vec<String> = ra
            .iter()
            .zip(rb)
            .map(|(x, y)| match (x, y) {
                (Ok((sx, cx, kx)), Ok((sy, cy, ky))) => format!(
                    "×{:.1} time (×{:.1} CPU), ×{:.1} memory",
                    sy / sx,
                    cy / cx,
                    *ky as f64 / *kx as f64
                ),
                _ => "–".to_string(),
            })
            .collect();
        println!(
            "| {a} → {b} (×{:.0}) | {} |",
            *b as f64 / *a as f64,
            cells.join(" | ")
        );
    }
    rows.iter().all(|(_, row)| row.iter().all(Result::is_ok))
}

/// `n` definitions like those of real schemas: an object with a bounded string, an integer with
/// a default, an enum, an optional list of the next definition and a reference to it.
fn definitions(n: usize) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| {
            let next = format!("#/$defs/d{}", (i + 1) % n);
            let def = json!({
                "type": "object",
                "description": format!("Definition {i}."),
                "required": ["name", "kind"],
                "additionalProperties": false,
                "properties": {
                    "name": {"type": "string", "maxLength": 40, "pattern": "^[a-z]+$"},
                    "count": {"type": "integer", "minimum": 0, "default": 1},
                    "kind": {"enum": ["a", "b", format!("k{}", i % 7)]},
                    "items": {"type": "array", "items": {"$ref": next}},
                    "next": {"$ref": next}
                }
            });
            (format!("d{i}"), def)
        })
        .collect();
    json!({ "$defs": defs })
}

fn chain(n: usize, make: impl Fn(String) -> Value) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| {
            let def = match i + 1 < n {
                true => make(format!("#/$defs/d{}", i + 1)),
                false => json!({"type": "string"}),
            };
            (format!("d{i}"), def)
        })
        .collect();
    json!({ "$defs": defs })
}

fn secs(start: Instant) -> String {
    format!("{:.2} s", start.elapsed().as_secs_f64())
}

fn run(name: &str, schema: &Value) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("s.json"), schema.to_string()).expect("write");
    let mut row = vec![name.to_string()];
    let config = |langs: &[Lang]| {
        let mut c = Config::new();
        c.schemas_dir(dir.path()).languages(langs);
        c
    };
    let start = Instant::now();
    match config(&[]).ir() {
        Ok(ir) => row.push(format!("{} ({} types)", secs(start), ir.types.len())),
        Err(e) => row.push(format!("error: {e}")),
    }
    for lang in [Lang::Rust, Lang::TypeScript, Lang::Python] {
        let start = Instant::now();
        match config(&[lang]).render() {
            Ok(r) => {
                let bytes: usize = r.packages[0].1.values().map(String::len).sum();
                row.push(format!("{} ({} KB)", secs(start), bytes / 1024));
            }
            Err(e) => row.push(format!("error: {e}")),
        }
    }
    let start = Instant::now();
    let all = config(&[Lang::Rust, Lang::TypeScript, Lang::Python]).render();
    row.push(match all {
        Ok(_) => secs(start),
        Err(e) => format!("error: {e}"),
    });
    println!("| {} |", row.join(" | "));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], &args[2]);
        return;
    }
    if args.first().map(String::as_str) == Some("--emit") {
        let n = args[1].parse().expect("a number of definitions");
        std::fs::write(&args[2], synthetic::schema(n).to_string()).expect("write");
        return;
    }
    let flag = |f: &str| args.iter().any(|a| a == f);
    let limit = std::env::var("CTXGEN_SCALE_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = match flag("--quick") {
            true => vec![300],
            false => vec![1_000, 10_000, 50_000],
        };
    }
    if !synthetic_table(&sizes, Duration::from_secs(limit)) {
        eprintln!("error: a synthetic schema failed to generate (see the table)");
        std::process::exit(1);
    }
    if flag("--quick") || flag("--synthetic") {
        return;
    }
    println!();
    println!("| input | IR | Rust | TypeScript | Python | all three |");
    println!("|---|---:|---:|---:|---:|---:|");
    run(
        "10,000 small definitions, each naming the next",
        &definitions(10_000),
    );
    let values: Vec<String> = (0..100_000).map(|i| format!("value-{i}")).collect();
    run(
        "enum of 100,000 values",
        &json!({"$defs": {"E": {"enum": values}}}),
    );
    run(
        "10,000-long `$ref` chain",
        &chain(10_000, |next| json!({"$ref": next})),
    );
    run(
        "10,000-long `allOf` chain",
        &chain(10_000, |next| json!({"allOf": [{"$ref": next}]})),
    );
    run(
        "10,000-long property chain",
        &chain(
            10_000,
            |next| json!({"type": "object", "properties": {"p": {"$ref": next}}}),
        ),
    );
    run(
        "10,000-long array chain",
        &chain(
            10_000,
            |next| json!({"type": "array", "items": {"$ref": next}}),
        ),
    );
    run(
        "3,900-long property cycle of look-alike objects",
        &chain(3_901, |next| {
            let back = if next.ends_with("d3900") {
                "#/$defs/d0".to_string()
            } else {
                next
            };
            json!({"type": "object", "properties": {"p": {"$ref": back}}})
        }),
    );
    run(
        "10,000-long `allOf` cycle of objects",
        &chain(10_001, |next| {
            let back = if next.ends_with("d10000") {
                "#/$defs/d0".to_string()
            } else {
                next
            };
            json!({"type": "object", "allOf": [{"$ref": back}]})
        }),
    );
    // Seven equal chains: the validation program merges equal nodes level by level.
    let mut equal = Map::new();
    let mut props = Map::new();
    for c in 0..7 {
        for i in 0..10_000 {
            let def = match i + 1 < 10_000 {
                true => {
                    json!({"type": "object", "properties": {"p": {"$ref": format!("#/$defs/c{c}_{}", i + 1)}}})
                }
                false => json!({"type": "string"}),
            };
            equal.insert(format!("c{c}_{i}"), def);
        }
        props.insert(format!("p{c}"), json!({"$ref": format!("#/$defs/c{c}_0")}));
    }
    run(
        "seven equal 10,000-long property chains",
        &json!({"type": "object", "properties": props, "$defs": equal}),
    );
}
