//! Figures over the records, the Markdown report and the JSON summary.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Rows of the failure table per cause and language.
const MAX_ROWS: usize = 30;
use std::fmt::Write;

use serde_json::{json, Value};

use crate::compare::{Failure, Record, Rt};

/// What the run looked at, besides the records.
#[derive(Default)]
pub struct Meta {
    pub command: String,
    /// The ctxgen source the runner was built from, as far as git tells.
    pub source: String,
    pub instances: usize,
    pub selected_schemas: usize,
    pub generated: usize,
    pub batches: usize,
    pub mutants_per_instance: usize,
    pub seed: u64,
    pub refused: Vec<(String, String)>,
    /// Packages that failed to generate together and were split: files, error.
    pub splits: Vec<(String, String)>,
    /// Packages that generated but did not build in a language and were split: files, error.
    pub build_splits: Vec<(String, String)>,
    pub missing: Vec<(String, usize)>,
    pub skipped: Vec<(String, String)>,
    pub oracle_unavailable: Vec<(String, String)>,
    pub drafts: BTreeMap<String, usize>,
    pub times: Vec<(String, f64)>,
    /// Schemas that use `unevaluatedProperties` or `unevaluatedItems`, which ctxgen does not
    /// implement yet.
    pub unimplemented: std::collections::BTreeSet<String>,
}

#[derive(Default, Clone)]
pub struct LangStats {
    pub judged: usize,
    pub agree: usize,
    pub false_reject: usize,
    pub false_accept: usize,
    pub errors: usize,
    pub rt_due: usize,
    pub rt_exact: usize,
    pub rt_defaults: usize,
    pub rt_differs: usize,
    pub rt_raised: usize,
    pub rt_not_accepted: usize,
}

#[derive(Default, Clone)]
pub struct SetStats {
    pub cases: usize,
    pub oracle_valid: usize,
    pub oracle_invalid: usize,
    pub oracle_unavailable: usize,
    pub format_sensitive: usize,
    pub langs: BTreeMap<String, LangStats>,
    pub all_answered: usize,
    pub verdicts_agree: usize,
    pub violations_identical: usize,
}

pub fn stats(records: &[Record], mutants: bool, langs: &[String]) -> SetStats {
    let mut s = SetStats::default();
    for r in records.iter().filter(|r| r.mutant.is_some() == mutants) {
        s.cases += 1;
        match r.oracle {
            Some(true) => s.oracle_valid += 1,
            Some(false) => s.oracle_invalid += 1,
            None => s.oracle_unavailable += 1,
        }
        s.format_sensitive += usize::from(r.format_sensitive);
        for lang in langs {
            let Some(o) = r.langs.get(lang) else { continue };
            let l = s.langs.entry(lang.clone()).or_default();
            if let Some(want) = r.oracle {
                l.judged += 1;
                match o.verdict {
                    None => l.errors += 1,
                    Some(v) if v == want => l.agree += 1,
                    Some(false) => l.false_reject += 1,
                    Some(true) => l.false_accept += 1,
                }
            }
            if r.round_trip_due(lang) {
                l.rt_due += 1;
                match (&o.rt, o.verdict) {
                    (_, v) if v != Some(true) => l.rt_not_accepted += 1,
                    (Rt::Exact, _) => l.rt_exact += 1,
                    (
                        Rt::Differs {
                            defaults_only: true,
                            ..
                        },
                        _,
                    ) => l.rt_defaults += 1,
                    (Rt::Differs { .. }, _) => l.rt_differs += 1,
                    _ => l.rt_raised += 1,
                }
            }
        }
        let answered: Vec<_> = langs
            .iter()
            .filter_map(|l| r.langs.get(l))
            .filter(|o| o.verdict.is_some())
            .collect();
        if answered.len() == langs.len() {
            s.all_answered += 1;
            if answered.iter().all(|o| o.verdict == answered[0].verdict) {
                s.verdicts_agree += 1;
                if crate::compare::cross(r).is_none() {
                    s.violations_identical += 1;
                }
            }
        }
    }
    s
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / d as f64)
    }
}

fn cell(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let s = if s.chars().count() > max {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    } else {
        s
    };
    s.replace('|', "\\|").replace('`', "'")
}

/// A pointer with array indices as `*`, to group failures.
fn pattern(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|t| {
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                t
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

struct Group<'a> {
    count: usize,
    example: &'a Failure,
}

fn groups(failures: &[Failure]) -> Vec<((String, String, String, String), Group<'_>)> {
    let mut map: BTreeMap<(String, String, String, String), Group> = BTreeMap::new();
    for f in failures {
        let key = (
            f.cause.clone(),
            f.lang.clone(),
            f.schema.clone(),
            pattern(&f.pointer),
        );
        map.entry(key)
            .and_modify(|g| g.count += 1)
            .or_insert(Group {
                count: 1,
                example: f,
            });
    }
    let mut out: Vec<_> = map.into_iter().collect();
    out.sort_by(|a, b| (a.0 .0.as_str(), b.1.count).cmp(&(b.0 .0.as_str(), a.1.count)));
    out
}

fn set_table(md: &mut String, title: &str, s: &SetStats, langs: &[String]) {
    let _ = writeln!(md, "\n## {title}\n");
    let _ = writeln!(
        md,
        "{} cases: {} valid and {} invalid for the oracle, {} without an oracle; {} whose verdict depends on asserting `format`.\n",
        s.cases, s.oracle_valid, s.oracle_invalid, s.oracle_unavailable, s.format_sensitive
    );
    md.push_str("| language | agrees with the oracle | rejects valid | accepts invalid | driver errors | round trips exact | only adds defaults | differs otherwise | parse raised | not accepted |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for lang in langs {
        let l = s.langs.get(lang).cloned().unwrap_or_default();
        let _ = writeln!(
            md,
            "| {lang} | {}/{} ({}) | {} | {} | {} | {}/{} ({}) | {} | {} | {} | {} |",
            l.agree,
            l.judged,
            pct(l.agree, l.judged),
            l.false_reject,
            l.false_accept,
            l.errors,
            l.rt_exact,
            l.rt_due,
            pct(l.rt_exact, l.rt_due),
            l.rt_defaults,
            l.rt_differs,
            l.rt_raised,
            l.rt_not_accepted
        );
    }
    let _ = writeln!(
        md,
        "\nBetween the languages ({}): same verdict {}/{} ({}), same verdict and identical (pointer, keyword) lists {}/{} ({}).",
        langs.join(", "),
        s.verdicts_agree,
        s.all_answered,
        pct(s.verdicts_agree, s.all_answered),
        s.violations_identical,
        s.all_answered,
        pct(s.violations_identical, s.all_answered)
    );
}

pub fn markdown(meta: &Meta, records: &[Record], failures: &[Failure], langs: &[String]) -> String {
    let mut md = String::from("# SchemaStore instances through the generated bindings\n\n");
    let _ = writeln!(
        md,
        "Written by `{}` over `schemastore-instances` (SchemaStore's own test instances) and the schemas of `schemastore/`. ctxgen source: {}. The oracle is the `jsonschema` crate (draft from `$schema`, 2020-12 without one; `$ref`s to other SchemaStore files resolved offline by file name, then by `$id`; `format` asserted as ctxgen does, `docs/validation.md`; `contentMediaType`/`contentEncoding` as annotations). A round trip parses a valid instance into the typed value and serializes it back; it is exact when the result equals the input as JSON (members in any order, numbers equal as numbers). Mutants: up to {} per valid instance, seed {}.\n",
        meta.command, meta.source, meta.mutants_per_instance, meta.seed
    );
    let sel = meta.selected_schemas;
    md.push_str("| | count |\n|---|---:|\n");
    let _ = writeln!(
        md,
        "| instances (index entries selected) | {} |",
        meta.instances
    );
    let _ = writeln!(md, "| schemas with instances | {sel} |");
    let _ = writeln!(
        md,
        "| schemas that generate | {} ({}) |",
        meta.generated,
        pct(meta.generated, sel)
    );
    let _ = writeln!(md, "| schemas refused | {} |", meta.refused.len());
    let _ = writeln!(md, "| schemas not in the corpus | {} |", meta.missing.len());
    let _ = writeln!(
        md,
        "| schemas without an oracle | {} |",
        meta.oracle_unavailable.len()
    );
    let _ = writeln!(md, "| instances skipped | {} |", meta.skipped.len());
    let _ = writeln!(md, "| packages (batches) | {} |", meta.batches);
    let drafts: Vec<String> = meta
        .drafts
        .iter()
        .map(|(d, n)| format!("{d}: {n}"))
        .collect();
    let _ = writeln!(
        md,
        "\nDrafts of the schemas that generate: {}.",
        drafts.join(", ")
    );
    let times: Vec<String> = meta
        .times
        .iter()
        .map(|(k, t)| format!("{k} {t:.0} s"))
        .collect();
    let _ = writeln!(md, "\nRun time: {}.", times.join(", "));
    set_table(&mut md, "Instances", &stats(records, false, langs), langs);
    set_table(&mut md, "Mutants", &stats(records, true, langs), langs);
    let differ: Vec<&Record> = records
        .iter()
        .filter(|r| {
            r.mutant.is_none() && r.expects.is_some() && r.oracle.is_some() && r.expects != r.oracle
        })
        .collect();
    let judged = records
        .iter()
        .filter(|r| r.mutant.is_none() && r.expects.is_some() && r.oracle.is_some())
        .count();
    let _ = writeln!(md, "\n## SchemaStore's expectations\n\nThe oracle differs from SchemaStore's expectation on {} of {judged} instances.\n", differ.len());
    if !differ.is_empty() {
        md.push_str("| schema | instance | SchemaStore expects | oracle | oracle's first error |\n|---|---|---|---|---|\n");
        for r in differ {
            let word = |v: Option<bool>| if v == Some(true) { "valid" } else { "invalid" };
            let first = r
                .oracle_first
                .as_ref()
                .map(|(p, k, _)| format!("{k} at \"{p}\""))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&r.schema, 60),
                cell(&r.id, 90),
                word(r.expects),
                word(r.oracle),
                cell(&first, 80)
            );
        }
    }
    let lists: [(&str, &Vec<(String, String)>); 5] = [
        ("Refused schemas", &meta.refused),
        (
            "Packages split (their files generate alone, not together)",
            &meta.splits,
        ),
        ("Packages split (they did not build)", &meta.build_splits),
        ("Schemas without an oracle", &meta.oracle_unavailable),
        ("Instances skipped", &meta.skipped),
    ];
    for (title, list) in lists {
        let _ = writeln!(md, "\n## {title} ({})\n", list.len());
        if !list.is_empty() {
            md.push_str("| file | why |\n|---|---|\n");
            for (f, why) in list {
                let _ = writeln!(md, "| {} | {} |", cell(f, 90), cell(why, 200));
            }
        }
    }
    if !meta.missing.is_empty() {
        let names: Vec<String> = meta
            .missing
            .iter()
            .map(|(s, n)| format!("`{s}` ({n})"))
            .collect();
        let _ = writeln!(
            md,
            "\nSchemas named by the index but not in the corpus (instances): {}.",
            names.join(", ")
        );
    }
    let _ = writeln!(md, "\n## Failures by cause ({})\n", failures.len());
    md.push_str("Grouped by cause, language, schema and first pointer (array indices as `*`; at most 30 rows per cause and language, the JSON summary lists every failure). `verdict`: a language disagrees with the oracle, or its driver failed; `cross`: the languages disagree (verdict, or the sorted (pointer, keyword) lists); `roundtrip`: a valid instance that does not come back exactly. Round-trip causes: *adds the schema's default* (the binding fills in the `default` of an absent member), *adds a member* (any other member the input lacks), *drops a (null) member*, *changes a value*, *changes the number of items*, *parse raised X* (an error other than the package's own validation error), *parse rejects what validate accepts*. Their pointer is the first difference that is not an applied default. Mutant ids end in `#m<k>`.\n\n");
    let verdicts: Vec<&Failure> = failures.iter().filter(|f| f.kind == "verdict").collect();
    let explained: BTreeSet<&str> = verdicts
        .iter()
        .filter(|f| meta.unimplemented.contains(&f.schema))
        .map(|f| f.schema.as_str())
        .collect();
    let unexplained = verdicts
        .iter()
        .filter(|f| !meta.unimplemented.contains(&f.schema))
        .count();
    let _ = writeln!(
        md,
        "Verdict differences explained: {} of {} are in schemas that use `unevaluatedProperties` or `unevaluatedItems` ({}), keywords ctxgen does not implement yet: it warns when it generates them and validates as if they were absent, so it accepts what they alone forbid (`docs/validation.md`); {unexplained} other(s).\n",
        verdicts.len() - unexplained,
        verdicts.len(),
        explained.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
    );
    // Per cause: (instances, mutants) per language column (`*` for cross-language).
    let mut columns: Vec<&str> = langs.iter().map(String::as_str).collect();
    columns.push("*");
    type PerLang<'a> = BTreeMap<&'a str, (usize, usize)>;
    let mut causes: BTreeMap<(&str, &str), PerLang> = BTreeMap::new();
    for f in failures {
        let c = causes
            .entry((f.kind, f.cause.as_str()))
            .or_default()
            .entry(f.lang.as_str())
            .or_default();
        if f.id.contains("#m") {
            c.1 += 1;
        } else {
            c.0 += 1;
        }
    }
    let _ = writeln!(
        md,
        "Failures per cause and language, as instances + mutants (`*`: between the languages):\n\n| kind | cause | {} |\n|---|---|{}",
        columns.join(" | "),
        "---:|".repeat(columns.len())
    );
    for ((k, c), per) in &causes {
        let cells: Vec<String> = columns
            .iter()
            .map(|l| match per.get(l) {
                Some((i, m)) => format!("{i} + {m}"),
                None => String::new(),
            })
            .collect();
        let _ = writeln!(md, "| {k} | {} | {} |", cell(c, 100), cells.join(" | "));
    }
    md.push_str("\n| cause | language | schema | first pointer | count | example | detail |\n|---|---|---|---|---:|---|---|\n");
    let mutants: HashMap<(&str, &str), &str> = records
        .iter()
        .filter_map(|r| Some(((r.schema.as_str(), r.id.as_str()), r.mutant.as_deref()?)))
        .collect();
    // Rows per (cause, language) at most; the JSON summary lists every failure.
    let mut shown: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut hidden: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for ((cause, lang, schema, pointer), g) in groups(failures) {
        let n = shown.entry((cause.clone(), lang.clone())).or_default();
        if *n >= MAX_ROWS {
            let h = hidden.entry((cause, lang)).or_default();
            h.0 += 1;
            h.1 += g.count;
            continue;
        }
        *n += 1;
        let id = g.example.id.as_str();
        let example = match mutants.get(&(g.example.schema.as_str(), id)) {
            Some(m) => format!("{id} ({m})"),
            None => id.to_string(),
        };
        let _ = writeln!(
            md,
            "| {} | {lang} | {} | `{}` | {} | {} | {} |",
            cell(&cause, 60),
            cell(&schema, 50),
            cell(&pointer, 60),
            g.count,
            cell(&example, 110),
            cell(&g.example.detail, 120)
        );
    }
    for ((cause, lang), (groups, count)) in hidden {
        let _ = writeln!(
            md,
            "| {} | {lang} | ({groups} more groups) | | {count} | | |",
            cell(&cause, 60)
        );
    }
    md
}

fn set_json(s: &SetStats) -> Value {
    let langs: serde_json::Map<String, Value> = s
        .langs
        .iter()
        .map(|(k, l)| {
            (
                k.clone(),
                json!({
                    "judged": l.judged, "agree": l.agree, "false_reject": l.false_reject,
                    "false_accept": l.false_accept, "errors": l.errors,
                    "round_trip_due": l.rt_due, "round_trip_exact": l.rt_exact,
                    "round_trip_defaults_only": l.rt_defaults, "round_trip_differs": l.rt_differs, "round_trip_raised": l.rt_raised,
                    "round_trip_not_accepted": l.rt_not_accepted,
                }),
            )
        })
        .collect();
    json!({
        "cases": s.cases, "oracle_valid": s.oracle_valid, "oracle_invalid": s.oracle_invalid,
        "oracle_unavailable": s.oracle_unavailable, "format_sensitive": s.format_sensitive,
        "langs": langs, "all_answered": s.all_answered, "verdicts_agree": s.verdicts_agree,
        "violations_identical": s.violations_identical,
    })
}

pub fn summary(
    meta: &Meta,
    records: &[Record],
    failures: &[Failure],
    langs: &[String],
    new: &[String],
    stale: &[String],
) -> Value {
    let pairs = |l: &[(String, String)]| -> Value {
        l.iter()
            .map(|(f, w)| json!({"file": f, "why": w}))
            .collect()
    };
    let expectations: Vec<Value> = records
        .iter()
        .filter(|r| r.mutant.is_none() && r.expects.is_some() && r.oracle.is_some() && r.expects != r.oracle)
        .map(|r| json!({"schema": r.schema, "instance": r.id, "schemastore_expects_valid": r.expects, "oracle_valid": r.oracle}))
        .collect();
    json!({
        "instances": meta.instances,
        "source": meta.source,
        "schemas": {"with_instances": meta.selected_schemas, "generated": meta.generated, "refused": pairs(&meta.refused),
            "oracle_unavailable": pairs(&meta.oracle_unavailable), "missing": meta.missing.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>()},
        "skipped": pairs(&meta.skipped),
        "packages_split": pairs(&meta.splits),
        "packages_not_built": pairs(&meta.build_splits),
        "langs": langs,
        "originals": set_json(&stats(records, false, langs)),
        "mutants": set_json(&stats(records, true, langs)),
        "schemastore_differences": expectations,
        "failures": failures.iter().map(|f| json!({"key": f.key(), "kind": f.kind, "cause": f.cause, "lang": f.lang,
            "schema": f.schema, "instance": f.id, "pointer": f.pointer, "detail": f.detail})).collect::<Vec<_>>(),
        "not_in_baseline": new,
        "baseline_no_longer_failing": stale,
        "times": meta.times.iter().map(|(k, t)| (k.clone(), json!(t))).collect::<serde_json::Map<_, _>>(),
    })
}
