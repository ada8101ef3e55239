//! The release-build section of `docs/corpus.md`: written between two markers, so the corpus
//! run (which rewrites the rest of the file) and this run each own their part.

use std::fmt::Write;

use super::{Case, Times};
use crate::section::{BEGIN, END};

/// One measured crate: ctxgen's, and typify's for the same schema where it has one.
pub struct Measured {
    pub case: Case,
    pub times: Times,
    pub typify: Result<Times, String>,
}

fn secs(t: Option<f64>) -> String {
    t.map_or_else(|| "failed".into(), |t| format!("{t:.1}"))
}

fn ratio(t: Option<f64>, check: Option<f64>) -> String {
    match (t, check) {
        (Some(t), Some(c)) if c > 0.0 => format!("{:.1}×", t / c),
        _ => "–".into(),
    }
}

/// A time with its ratio to the check time: `27.7 (4.3×)`.
fn cell(t: Option<f64>, check: Option<f64>) -> String {
    format!("{} ({})", secs(t), ratio(t, check))
}

/// The section, markers included.
pub fn section(
    rows: &[Measured],
    python: &[(String, Result<String, String>)],
    setting: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{BEGIN}\n## Release builds\n");
    let _ = writeln!(
        s,
        "Written by `ctxgen-release-builds` ({setting}). Each crate is built alone with its \
         dependencies already built: `cargo check`, `cargo build --release` and the same with \
         `lto = true`, in seconds; \"crate: worst\" is the larger ratio of the two to `cargo \
         check` (the bound `--max-ratio` checks). The per-type parse and serialize functions \
         are `#[inline]` and an LTO build of a library leaves code generation to the final \
         link, so the serde code of the types is compiled where they are used: a binary that \
         calls `round_trip` (parse and serialize) and `validate` for every type is built as \
         well, the generated crate and the binary cleaned (\"binary\" columns, ratios also to \
         the crate's `cargo check`).\n"
    );
    let _ = writeln!(
        s,
        "| crate | Rust source | check | release | lto | crate: worst | binary release | binary lto |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for m in rows {
        let t = &m.times;
        let worst = t
            .crate_ratio()
            .map_or_else(|| "–".into(), |r| format!("**{r:.1}×**"));
        let _ = writeln!(
            s,
            "| `{}` | {:.0} KB | {} | {} | {} | {worst} | {} | {} |",
            m.case.label,
            m.case.source_bytes as f64 / 1024.0,
            secs(t.check),
            cell(t.release, t.check),
            cell(t.lto, t.check),
            cell(t.consumer_release, t.check),
            cell(t.consumer_lto, t.check),
        );
    }
    let most = |f: fn(&Times) -> Option<f64>| {
        rows.iter()
            .filter_map(|m| f(&m.times))
            .fold(None, |a: Option<f64>, r| Some(a.map_or(r, |a| a.max(r))))
    };
    if let (Some(c), Some(b)) = (most(Times::crate_ratio), most(Times::binary_ratio)) {
        let _ = writeln!(
            s,
            "\nLargest ratio to `cargo check`: {c:.1}× for a crate's own release or LTO build, \
             {b:.1}× for a binary that uses every type."
        );
    }
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|m| {
            m.times
                .failure
                .as_ref()
                .map(|f| format!("`{}`: {f}", m.case.label))
        })
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(s, "\nFailed builds: {}.", failures.join("; "));
    }
    let _ = writeln!(
        s,
        "\n### typify on the same schemas\n\ntypify 0.8's `TypeSpace` on the same file (types \
         and serde only, no validation), its crate built the same way; its binary parses every \
         type typify derives serde for from a JSON value and serializes it back. ctxgen's figures repeated beside.\n"
    );
    let _ = writeln!(
        s,
        "| schema | typify check | release | lto | binary release | binary lto | ctxgen check | release | binary lto |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut refused = Vec::new();
    for m in rows {
        match &m.typify {
            Ok(t) => {
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                    m.case.label,
                    secs(t.check),
                    cell(t.release, t.check),
                    cell(t.lto, t.check),
                    cell(t.consumer_release, t.check),
                    cell(t.consumer_lto, t.check),
                    secs(m.times.check),
                    cell(m.times.release, m.times.check),
                    cell(m.times.consumer_lto, m.times.check),
                );
            }
            Err(why) => refused.push(format!("`{}` ({why})", m.case.label)),
        }
    }
    if !refused.is_empty() {
        let _ = writeln!(s, "\nNo typify crate: {}.", refused.join("; "));
    }
    if !python.is_empty() {
        let _ = writeln!(s, "\n### Directory cases in Python\n");
        for (label, r) in python {
            match r {
                Ok(text) => {
                    let _ = writeln!(s, "- `{label}`: {text}.");
                }
                Err(e) => {
                    let _ = writeln!(s, "- `{label}`: **fails**: {e}");
                }
            }
        }
    }
    let _ = writeln!(s, "{END}");
    s
}
