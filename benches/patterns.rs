//! `pattern` matching speed in Rust: the engine the generator picks for each pattern (`regress`
//! where backtracking is proven linear, the `regex` crate on the RE2 translation otherwise),
//! next to `regress` on the same pattern (the engine used for every pattern before).
//!
//! `cargo bench --bench patterns`

use std::time::{Duration, Instant};

use ctxgen::backend::pattern::{plan, Dialect};

/// Median time of one call of `f`, over `runs` batches of `batch` calls.
fn time(runs: usize, batch: usize, mut f: impl FnMut() -> bool) -> Duration {
    let mut times = Vec::new();
    let mut sink = 0usize;
    for _ in 0..runs {
        let start = Instant::now();
        for _ in 0..batch {
            sink += usize::from(f());
        }
        times.push(start.elapsed() / batch as u32);
    }
    std::hint::black_box(sink);
    times.sort();
    times[times.len() / 2]
}

/// A compiled pattern: does it match a string?
type Matcher = Box<dyn Fn(&str) -> bool>;

/// The matcher the generated Rust code builds for `source`, and its engine's name.
fn chosen(source: &str) -> (Matcher, &'static str) {
    match plan(source).linear(Dialect::Rust) {
        Some(t) => {
            let re = regex::Regex::new(t).expect("translation compiles");
            (Box::new(move |s| re.is_match(s)), "regex")
        }
        None => {
            let re = regress::Regex::with_flags(source, "u").expect("pattern compiles");
            (Box::new(move |s| re.find(s).is_some()), "regress")
        }
    }
}

fn main() {
    let a = "a".repeat(10_000);
    let hostile: Vec<(&str, String)> = vec![
        ("^(a+)+$", format!("{a}!")),
        ("(a|a)*$", format!("{a}!")),
        ("(a|aa)+$", format!("{a}!")),
        ("(\\w+\\s?)*$", format!("{a}!")),
        ("^(a*)*b$", a.clone()),
        ("(x+x+)+y", "x".repeat(10_000)),
        ("a*a*a*a*b", a.clone()),
    ];
    println!("hostile input, 10,000 characters (the generated code's engine):");
    for (p, s) in &hostile {
        let (f, engine) = chosen(p);
        let t = time(3, 1, || f(s));
        println!("  {p:<14} {engine:<8} {:>10.3} ms", t.as_secs_f64() * 1e3);
    }
    // The engine used before, on 24 characters only: every extra `a` doubles the time.
    let ecma = regress::Regex::with_flags("^(a+)+$", "u").expect("compiles");
    let short = format!("{}!", "a".repeat(24));
    let t = time(1, 1, || ecma.find(&short).is_some());
    println!(
        "  ^(a+)+$ with regress on 24 characters (before): {:.1} ms",
        t.as_secs_f64() * 1e3
    );

    let ordinary: &[(&str, &str)] = &[
        ("^[a-z]+$", "hello"),
        ("^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}$", "abc/def_g/hij"),
        ("^\\d{4}-\\d{2}-\\d{2}$", "2024-01-02"),
        ("^\\p{L}+$", "héllo"),
        ("\\.json$", "schema.json"),
        ("^[a-z]+[a-z0-9]*$", "abc123"),
        ("[a-z]+x", "-abx"),
    ];
    println!("ordinary input, per call (chosen engine vs regress on the same pattern):");
    for (p, s) in ordinary {
        let (f, engine) = chosen(p);
        let ecma = regress::Regex::with_flags(p, "u").expect("compiles");
        let new = time(9, 20_000, || f(s));
        let old = time(9, 20_000, || ecma.find(s).is_some());
        println!(
            "  {p:<40} {engine:<8} {:>8.0} ns   regress {:>8.0} ns",
            new.as_nanos() as f64,
            old.as_nanos() as f64
        );
    }
}
