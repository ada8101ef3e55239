//! The validation section of `docs/performance.md`, written from one run's manifest and the
//! three harnesses' results.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

use super::workloads::size;

pub const BEGIN: &str = "<!-- validation-bench: written by ctxgen-bench -->";
pub const END: &str = "<!-- /validation-bench -->";

/// The peers of each language and mode, in column order (`json` is the floor).
const COLUMNS: &[(&str, &str, &[&str])] = &[
    ("rust", "check", &["jsonschema"]),
    ("rust", "errors", &["jsonschema"]),
    ("rust", "parse", &["serde"]),
    ("typescript", "check", &["ajv", "typebox"]),
    ("typescript", "errors", &["ajv", "typebox"]),
    ("typescript", "parse", &[]),
    ("python", "check", &["fastjsonschema", "jsonschema-rs"]),
    ("python", "errors", &["jsonschema-rs"]),
    ("python", "parse", &["pydantic", "msgspec"]),
    (
        "python-native",
        "check",
        &["fastjsonschema", "jsonschema-rs"],
    ),
    ("python-native", "errors", &["jsonschema-rs"]),
    ("python-native", "parse", &["pydantic", "msgspec"]),
];

const LANGS: &[(&str, &str)] = &[
    ("rust", "Rust"),
    ("typescript", "TypeScript"),
    ("python", "Python"),
    ("python-native", "Python with the native accelerator"),
];

fn mode_title(lang: &str, mode: &str) -> &'static str {
    match (lang, mode) {
        ("rust", "check") => "`T::is_valid(&v)` against `jsonschema`'s `is_valid`",
        ("rust", "errors") => "`T::validate_value(&v)`, every violation, against `iter_errors`",
        ("rust", "parse") => "`T::from_json(text)` (parse, validate, build) against plain `serde_json::from_str::<T>` (no validation)",
        ("typescript", "check") => "`isT(v)` against ajv (first error) and TypeBox's compiled `Check`",
        ("typescript", "errors") => "`validateT(v)` against ajv `allErrors` and TypeBox's `Errors`",
        ("typescript", "parse") => "`parseT(JSON.parse(text))`",
        ("python", "check") => "`is_valid_t(v)` against fastjsonschema and jsonschema-rs `is_valid`",
        ("python", "errors") => "`validate_t(v)` against jsonschema-rs `iter_errors`",
        ("python", "parse") => "`parse_t(json.loads(text))` against pydantic `model_validate_json` and msgspec `decode` of models of the same schema",
        ("python-native", "check") => "`is_valid_t(v)`, the package's accelerator installed, against fastjsonschema and jsonschema-rs `is_valid`",
        ("python-native", "errors") => "`validate_t(v)`, the accelerator installed, against jsonschema-rs `iter_errors`",
        ("python-native", "parse") => "`parse_t(json.loads(text))`, the accelerator installed, against pydantic and msgspec",
        _ => "",
    }
}

/// One measurement.
struct Cell {
    ns: Option<f64>,
    mismatches: u64,
    skipped: Option<String>,
}

type Results = BTreeMap<(String, String, String, String), Cell>;

fn collect(results: &[(String, Result<Value, String>)]) -> Results {
    let mut out = BTreeMap::new();
    for (lang, r) in results {
        let Ok(r) = r else { continue };
        for e in r["results"].as_array().into_iter().flatten() {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            out.insert(
                (lang.clone(), s("workload"), s("impl"), s("mode")),
                Cell {
                    ns: e["median_ns"].as_f64(),
                    mismatches: e["mismatches"].as_u64().unwrap_or(0),
                    skipped: e["skipped"].as_str().map(String::from),
                },
            );
        }
    }
    out
}

pub fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Where ctxgen is slower than a peer: (language, mode, workload, peer, peer ÷ ctxgen).
pub type Behind = Vec<(String, String, String, String, f64)>;

/// The section, and the cases where ctxgen is behind a peer, and the ctxgen mismatches.
pub fn section(
    manifest: &Value,
    results: &[(String, Result<Value, String>)],
    setting: &str,
) -> (String, Behind, Vec<String>) {
    let cells = collect(results);
    let workloads: Vec<&Value> = manifest["workloads"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let mut s = String::new();
    let mut behind = Vec::new();
    let mut wrong = Vec::new();
    let _ = writeln!(s, "{BEGIN}\n## Validation and typed parsing\n");
    s.push_str(INTRO);
    let _ = writeln!(s, "\n{setting}.\n");
    for (lang, r) in results {
        match r {
            Ok(r) => {
                let versions: Vec<String> = r["versions"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| format!("{k} {}", v.as_str().unwrap_or("?")))
                    .collect();
                let _ = writeln!(
                    s,
                    "- {}: {}; {}",
                    title(lang),
                    r["runtime"].as_str().unwrap_or("?"),
                    versions.join(", ")
                );
            }
            Err(e) => {
                let _ = writeln!(s, "- {}: **the harness failed**: {e}", title(lang));
                wrong.push(format!("{lang}: the harness failed: {e}"));
            }
        }
    }
    s.push_str("\n### Workloads\n\n| workload | schema | items | JSON | verdict |\n|---|---|---:|---:|---|\n");
    for w in &workloads {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} |",
            w["id"].as_str().unwrap_or(""),
            w["title"].as_str().unwrap_or(""),
            w["items"].as_array().map_or(0, Vec::len),
            size(w["bytes"].as_u64().unwrap_or(0) as usize),
            w["expect"].as_str().unwrap_or(""),
        );
    }
    let mut notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (lang, lang_title) in LANGS {
        if !results.iter().any(|(l, _)| l == lang) {
            continue;
        }
        let _ = writeln!(s, "\n### {lang_title}\n");
        for (_, mode, peers) in COLUMNS.iter().filter(|(l, _, _)| l == lang) {
            let _ = writeln!(s, "**{mode}**: {}.\n", mode_title(lang, mode));
            let mut head =
                String::from("| workload | JSON parse (floor) | ctxgen | ctxgen ÷ floor |");
            let mut rule = String::from("|---|---:|---:|---:|");
            for p in *peers {
                let _ = write!(head, " {p} | {p} ÷ ctxgen |");
                rule.push_str("---:|---:|");
            }
            let _ = writeln!(s, "{head}\n{rule}");
            for w in &workloads {
                let id = w["id"].as_str().unwrap_or("");
                let get = |imp: &str, m: &str| {
                    cells.get(&(
                        lang.to_string(),
                        id.to_string(),
                        imp.to_string(),
                        m.to_string(),
                    ))
                };
                let floor = get("json", "floor").and_then(|c| c.ns);
                let ours = get("ctxgen", mode);
                let ours_ns = ours.and_then(|c| c.ns);
                match ours {
                    None => wrong.push(format!("{lang} ctxgen {mode} on {id}: not measured")),
                    Some(Cell {
                        skipped: Some(why), ..
                    }) => wrong.push(format!("{lang} ctxgen {mode} on {id}: skipped: {why}")),
                    Some(_) => {}
                }
                if let Some(c) = ours.filter(|c| c.mismatches > 0) {
                    wrong.push(format!(
                        "{lang} ctxgen {mode} on {id}: {} item(s) against the expected verdict",
                        c.mismatches
                    ));
                }
                let mut row = format!(
                    "| `{id}` | {} | {} | {} |",
                    floor.map_or("—".into(), time),
                    ours_ns.map_or("—".into(), time),
                    ratio(ours_ns, floor)
                );
                for p in *peers {
                    let c = get(p, mode);
                    match c {
                        Some(Cell {
                            skipped: Some(why), ..
                        }) => {
                            notes
                                .entry(format!("{lang_title} {p}"))
                                .or_default()
                                .push(format!("`{id}` ({mode}): {why}"));
                            row.push_str(" skipped | — |");
                        }
                        Some(c) => {
                            let mark = if c.mismatches > 0 {
                                notes.entry(format!("{lang_title} {p}")).or_default().push(format!(
                                    "`{id}` ({mode}): {} item(s) got another verdict than the specification's",
                                    c.mismatches
                                ));
                                " ⚠"
                            } else {
                                ""
                            };
                            let r = ratio(c.ns, ours_ns);
                            if let (Some(a), Some(b)) = (c.ns, ours_ns) {
                                if a < b && c.mismatches == 0 {
                                    behind.push((
                                        lang.to_string(),
                                        mode.to_string(),
                                        id.to_string(),
                                        p.to_string(),
                                        a / b,
                                    ));
                                }
                            }
                            let _ = write!(row, " {}{mark} | {r} |", c.ns.map_or("—".into(), time));
                        }
                        None => row.push_str(" — | — |"),
                    }
                }
                let _ = writeln!(s, "{row}");
            }
            s.push('\n');
        }
    }
    s.push_str("### Where ctxgen is behind\n\n");
    if behind.is_empty() {
        s.push_str("Nowhere in this run: ctxgen is at least as fast as every peer that validated the same schema with the specification's verdicts.\n");
    } else {
        for (lang, mode, id, peer, r) in &behind {
            let _ = writeln!(
                s,
                "- {} {mode} `{id}`: {peer} takes {r:.2}× ctxgen's time",
                title(lang)
            );
        }
    }
    if !notes.is_empty() {
        s.push_str("\n### Peers not timed, or with other verdicts\n\n");
        for (peer, list) in &notes {
            let _ = writeln!(s, "- {peer}: {}", list.join("; "));
        }
    }
    let _ = writeln!(s, "\n{END}");
    (s, behind, wrong)
}

fn title(lang: &str) -> &str {
    LANGS
        .iter()
        .find(|(l, _)| *l == lang)
        .map_or(lang, |(_, t)| t)
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

const INTRO: &str = "`cargo run --release -p ctxgen-tools --bin ctxgen-bench` writes this section from one run \
(README, Other commands): the same workloads, in the same files, through the generated Rust, TypeScript \
and Python bindings and, in the same process, each language's peers. Every item's expected verdict is \
the `jsonschema` crate's (formats asserted, as ctxgen asserts them); a peer that cannot represent a \
schema faithfully is not timed on a weaker one, and a peer that gives another verdict is marked ⚠. \
Validators (`check`, `errors`) run on values parsed before timing; `parse` and the floor start from \
the JSON text. Each figure is the median time of one pass over the workload's items (a warm-up, then \
at least 7 samples and 0.5 s; a sample times as many passes in a row as take 10 µs, so that reading \
the clock does not weigh on a short pass); the implementations of a workload take turns in ten or more rounds, so \
that a slower stretch of the machine weighs on all of them. A ratio above 1 in a peer's column means \
ctxgen is faster. \
`FORMAT.md` beside the runner (`tools/src/bin/bench/`) gives the exact calls.\n";

/// `text` with its section replaced by `section` (inserted after the first heading when it has
/// none).
pub fn splice(text: &str, section: &str) -> String {
    let section = section.trim();
    if let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) {
        if b < e {
            return format!("{}{section}{}", &text[..b], &text[e + END.len()..]);
        }
    }
    match text.find("\n## ") {
        Some(at) => format!("{}{section}\n\n{}", &text[..at + 1], &text[at + 1..]),
        None if text.trim().is_empty() => format!("# Performance\n\n{section}\n"),
        None => format!("{}\n\n{section}\n", text.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_section_goes_before_the_first_section_and_is_replaced_in_place() {
        let doc = "# Performance\n\n## Generation scale\n\nrows\n";
        let once = splice(doc, &format!("{BEGIN}\nA\n{END}"));
        assert_eq!(
            once,
            format!("# Performance\n\n{BEGIN}\nA\n{END}\n\n## Generation scale\n\nrows\n")
        );
        let twice = splice(&once, &format!("{BEGIN}\nB\n{END}"));
        assert_eq!(twice, once.replace("\nA\n", "\nB\n"));
    }

    #[test]
    fn a_peer_faster_than_ctxgen_is_listed_and_a_ctxgen_mismatch_skip_or_gap_reported() {
        let manifest = json!({"workloads": [{"id": "w", "title": "t", "items": [{}], "bytes": 10, "expect": "valid"}]});
        let r = json!({"runtime": "node", "versions": {}, "results": [
            {"workload": "w", "impl": "ctxgen", "mode": "check", "median_ns": 200.0, "runs": 3, "mismatches": 1},
            {"workload": "w", "impl": "ajv", "mode": "check", "median_ns": 100.0, "runs": 3, "mismatches": 0},
            {"workload": "w", "impl": "typebox", "mode": "check", "skipped": "if/then"},
            {"workload": "w", "impl": "ctxgen", "mode": "errors", "skipped": "no validateW"},
        ]});
        let (text, behind, wrong) = section(&manifest, &[("typescript".into(), Ok(r))], "2 cores");
        assert_eq!(behind.len(), 1);
        assert_eq!(behind[0].3, "ajv");
        assert!((behind[0].4 - 0.5).abs() < 1e-9);
        // The mismatch, the skipped errors cell, the missing parse cell.
        assert_eq!(wrong.len(), 3, "{wrong:?}");
        assert!(
            wrong[0].contains("ctxgen check on w: 1 item(s)"),
            "{wrong:?}"
        );
        assert!(
            wrong[1].contains("ctxgen errors on w: skipped: no validateW"),
            "{wrong:?}"
        );
        assert!(
            wrong[2].contains("ctxgen parse on w: not measured"),
            "{wrong:?}"
        );
        assert!(
            text.contains("| `w` | — | 200 ns | — | 100 ns | 0.50× | skipped | — |"),
            "{text}"
        );
        assert!(text.contains("TypeScript typebox: `w` (check): if/then"));
    }
}
