//! The corpus run as Markdown (the "SchemaStore corpus" section of docs/evolution.md), and the
//! classification of each pair's agreement with jsoncompat.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use ctxgen::diff::{Outcome, Report, Status};
use serde_json::Value;

use super::oracle::{independent, Jc};
use crate::Row;

fn short(v: &Value) -> String {
    clip(&v.to_string(), 100)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        format!("{}…", s.chars().take(n).collect::<String>())
    } else {
        s.to_string()
    }
}

fn outcome(o: Option<Outcome>) -> &'static str {
    match o {
        Some(Outcome::Compatible) | None => "compatible",
        Some(Outcome::Unconfirmed) => "unconfirmed",
        Some(Outcome::Incompatible) => "incompatible",
    }
}

/// Our verdict on the message type for one role against jsoncompat's: (role, class, why).
/// `role` is `reader` (jsoncompat's deserializer) or `writer` (its serializer).
pub fn agreement(
    role: &str,
    ours: Option<Outcome>,
    report: &Report,
    jc: &Jc,
    raw_old: &Value,
    raw_new: &Value,
) -> (String, String, String) {
    let reader = role == "reader";
    let (producer, consumer) = if reader {
        (raw_old, raw_new)
    } else {
        (raw_new, raw_old)
    };
    let ours = outcome(ours);
    let cx = report
        .types
        .iter()
        .find(|t| t.root && t.status == Status::Changed)
        .and_then(|t| {
            if reader {
                t.reader.counterexample.as_ref()
            } else {
                t.writer.counterexample.as_ref()
            }
        });
    let (class, why) = match (ours, jc) {
        (_, Jc::Error { message }) => ("jsoncompat-error", message.clone()),
        ("compatible", Jc::Compatible) | ("incompatible", Jc::Incompatible { .. }) => {
            ("agree", String::new())
        }
        ("unconfirmed", Jc::Incompatible { .. }) => (
            "agree-unconfirmed",
            "both predict a break; neither side's instances showed one to ctxgen".into(),
        ),
        ("unconfirmed", Jc::Compatible) => (
            "ctxgen-unconfirmed",
            "ctxgen predicts a possible break (a change it cannot decide) without a counterexample; jsoncompat proves the role compatible".into(),
        ),
        ("incompatible", Jc::Compatible) => {
            let why = match cx {
                Some(cx) => {
                    let confirmed = match (
                        independent(producer, &cx.instance),
                        independent(consumer, &cx.instance),
                    ) {
                        (Some(true), Some(false)) => "confirmed by the jsonschema crate",
                        (Some(_), Some(_)) => "NOT confirmed by the jsonschema crate",
                        _ => "the raw schemas do not compile in the jsonschema crate",
                    };
                    let at: Vec<String> = cx
                        .violations
                        .iter()
                        .take(3)
                        .map(|v| format!("`{}` {}", v.pointer, v.keyword))
                        .collect();
                    let undeclared = reader
                        && cx.violations.iter().any(|v| {
                            matches!(v.keyword.as_str(), "additionalProperties" | "false")
                        });
                    format!(
                        "{}{} rejects {} at {} ({confirmed})",
                        if undeclared {
                            "undeclared property (jsoncompat's deserializer assumes producers send none): "
                        } else {
                            ""
                        },
                        cx.rejected_by,
                        short(&cx.instance),
                        at.join(", "),
                    )
                }
                None => "a removed message type".into(),
            };
            ("jsoncompat-misses", why)
        }
        ("compatible", Jc::Incompatible { counterexample }) => match counterexample {
            Some(x) => match (independent(producer, x), independent(consumer, x)) {
                (Some(true), Some(false)) => (
                    "CONTRADICTION",
                    format!(
                        "jsoncompat's counterexample {} is confirmed by the jsonschema crate",
                        short(x)
                    ),
                ),
                (Some(p), Some(c)) => (
                    "jsoncompat-false-positive",
                    format!(
                        "jsoncompat's counterexample {} is none: the jsonschema crate says the producer's schema {} it and the consumer's {} it",
                        short(x),
                        if p { "accepts" } else { "rejects" },
                        if c { "accepts" } else { "rejects" }
                    ),
                ),
                _ => (
                    "jsoncompat-unproven",
                    format!("counterexample {} (raw schemas do not compile in the jsonschema crate)", short(x)),
                ),
            },
            None => (
                "jsoncompat-unproven",
                "jsoncompat answers incompatible without a counterexample (its check is conservative); neither its fuzzing nor ctxgen's instances found one".into(),
            ),
        },
        _ => ("other", String::new()),
    };
    (role.to_string(), class.to_string(), why)
}

/// The Markdown report of a run.
pub fn markdown(rows: &[Row], corpus: &Path, verify: usize, samples: usize, secs: f64) -> String {
    let mut s = String::new();
    let ok: Vec<&Row> = rows.iter().filter(|r| r.error.is_none()).collect();
    let families: BTreeMap<&str, Vec<&Row>> = rows.iter().fold(BTreeMap::new(), |mut m, r| {
        m.entry(r.family.as_str()).or_insert_with(Vec::new).push(r);
        m
    });
    let gen_families = families
        .values()
        .filter(|v| v.iter().any(|r| r.error.is_none()))
        .count();
    let sum = |f: &dyn Fn(&Row) -> usize| ok.iter().map(|r| f(r)).sum::<usize>();
    let short_verdicts = sum(&|r| r.verify_short.len());
    let exhaustive = sum(&|r| r.verify_exhaustive.len());
    let _ = writeln!(
        s,
        "Generated by `ctxgen-evolution {}` ({samples} instances per type and role in the diff, {verify} per verdict in the re-check), {secs:.0} s on two shared cores.\n",
        corpus.display()
    );
    let _ = writeln!(s, "| figure | count |\n|---|---:|");
    for (k, v) in [
        ("families (two or more versions)", families.len()),
        ("families with a pair that generates", gen_families),
        ("consecutive pairs", rows.len()),
        ("pairs that generate", ok.len()),
        (
            "pairs with a wire change",
            ok.iter().filter(|r| r.changed_types > 0).count(),
        ),
        ("instances run by the diffs", sum(&|r| r.instances)),
        ("\"compatible\" verdicts re-checked", sum(&|r| r.verified)),
        (
            "instances run by the re-checks",
            sum(&|r| r.verify_instances),
        ),
        (
            &format!("… with at least {verify} distinct valid instances sampled"),
            sum(&|r| r.verified - r.verify_exhaustive.len() - r.verify_short.len()),
        ),
        (
            "… exhaustively: a finite instance space, every instance checked",
            exhaustive,
        ),
        (
            &format!("… below the bar: sampled, fewer than {verify} distinct valid instances"),
            short_verdicts,
        ),
        (
            "contradicted \"compatible\" verdicts",
            sum(&|r| r.contradictions.len()),
        ),
        (
            "counterexamples of message types",
            sum(&|r| r.counterexamples),
        ),
        (
            "… confirmed by the jsonschema crate on the raw schemas",
            sum(&|r| r.confirmed),
        ),
        ("… refuted by it", sum(&|r| r.refuted.len())),
        (
            "message instances judged alike by ctxgen and the jsonschema crate (100 generated and `{}` per version)",
            sum(&|r| r.oracle_agree),
        ),
        ("… judged differently", sum(&|r| r.oracle_disagree.len())),
    ] {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    let mut classes: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for r in &ok {
        for (role, class, _) in &r.agreement {
            *classes.entry((role.as_str(), class.as_str())).or_insert(0) += 1;
        }
    }
    if !classes.is_empty() {
        let _ = writeln!(s, "\nAgreement with jsoncompat, per pair and role (the message type):\n\n| role | class | pairs |\n|---|---|---:|");
        for ((role, class), n) in &classes {
            let _ = writeln!(s, "| {role} | {class} | {n} |");
        }
    }
    let _ = writeln!(s, "\n### Per family\n\nWire bumps required (major/minor/patch), pairs whose declared bump is too small, the change classes found (over all types), the message type's outcomes per role (compatible/unconfirmed/incompatible), and agreement with jsoncompat (pairs and roles that agree, of those it could check).\n\n| family | pairs | bumps M/m/p | too small | changes | reader c/u/i | writer c/u/i | jsoncompat |\n|---|---:|---|---:|---|---|---|---|");
    for (fam, rs) in &families {
        let g: Vec<&&Row> = rs.iter().filter(|r| r.error.is_none()).collect();
        let count = |w: &str| g.iter().filter(|r| r.wire == w).count();
        let mut cl: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &g {
            for (c, n) in &r.classes {
                *cl.entry(c).or_insert(0) += n;
            }
        }
        let mut cl: Vec<(&str, usize)> = cl.into_iter().collect();
        cl.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let changes: Vec<String> = cl.iter().take(5).map(|(c, n)| format!("{c} {n}")).collect();
        let roles = |reader: bool| {
            let o = |x: &str| {
                g.iter()
                    .filter(|r| outcome(if reader { r.reader } else { r.writer }) == x)
                    .count()
            };
            format!(
                "{}/{}/{}",
                o("compatible"),
                o("unconfirmed"),
                o("incompatible")
            )
        };
        let checked = g
            .iter()
            .flat_map(|r| r.agreement.iter())
            .filter(|a| a.1 != "jsoncompat-error")
            .count();
        let agree = g
            .iter()
            .flat_map(|r| r.agreement.iter())
            .filter(|a| a.1.starts_with("agree"))
            .count();
        let errors = rs.len() - g.len();
        let _ = writeln!(
            s,
            "| `{fam}` | {}{} | {}/{}/{} | {} | {} | {} | {} | {} |",
            g.len(),
            if errors > 0 {
                format!(" (+{errors} not generating)")
            } else {
                String::new()
            },
            count("major"),
            count("minor"),
            count("patch"),
            g.iter().filter(|r| !r.ok).count(),
            if changes.is_empty() {
                "—".into()
            } else {
                changes.join(", ")
            },
            roles(true),
            roles(false),
            if checked == 0 {
                "—".to_string()
            } else {
                format!("{agree}/{checked}")
            },
        );
    }
    let _ = writeln!(s, "\n### Disagreements with jsoncompat\n\n| pair | role | ctxgen | jsoncompat | class | explanation |\n|---|---|---|---|---|---|");
    for r in &ok {
        for (i, (role, class, why)) in r.agreement.iter().enumerate() {
            if class.starts_with("agree") || class == "jsoncompat-error" {
                continue;
            }
            let jc = r
                .jsoncompat
                .as_ref()
                .map(|p| if i == 0 { &p.0 } else { &p.1 });
            let jc = match jc {
                Some(Jc::Compatible) => "compatible",
                Some(Jc::Incompatible { .. }) => "incompatible",
                _ => "error",
            };
            let ours = outcome(if i == 0 { r.reader } else { r.writer });
            let why = why.replace('|', "\\|");
            let _ = writeln!(
                s,
                "| `{}` {} → {} | {role} | {ours} | {jc} | {class} | {why} |",
                r.family, r.old, r.new
            );
        }
    }
    let mut errs: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &ok {
        for (_, class, why) in &r.agreement {
            if class == "jsoncompat-error" {
                *errs.entry(why.as_str()).or_insert(0) += 1;
            }
        }
    }
    if !errs.is_empty() {
        let _ = writeln!(
            s,
            "\nRoles jsoncompat could not check (its message, and how many):\n"
        );
        for (m, n) in errs {
            let _ = writeln!(s, "* {n} × {}", m.replace('|', "\\|"));
        }
    }
    if short_verdicts > 0 {
        let _ = writeln!(s, "\n### Verdicts below the bar\n\nSampled (the instance space is infinite, or larger than the exhaustive cap, or not listed), and the generator found fewer than {verify} distinct valid instances in {} tries:\n", verify * 8);
        for r in &ok {
            for v in &r.verify_short {
                let _ = writeln!(s, "* `{}` {} → {}: {v}", r.family, r.old, r.new);
            }
        }
    }
    if exhaustive > 0 {
        let _ = writeln!(s, "\n### Verdicts checked exhaustively\n\nThe producing side's instance space is finite (at most {} values) and every instance was run through the consumer:\n", ctxgen::diff::verify::EXHAUSTIVE_CAP);
        for r in &ok {
            for v in &r.verify_exhaustive {
                let _ = writeln!(s, "* `{}` {} → {}: {v}", r.family, r.old, r.new);
            }
        }
    }
    let bad: Vec<&Row> = rows.iter().filter(|r| r.error.is_some()).collect();
    if !bad.is_empty() {
        let _ = writeln!(s, "\n### Pairs that do not generate\n");
        for r in bad {
            let _ = writeln!(
                s,
                "* `{}` {} → {}: {}",
                r.family,
                r.old,
                r.new,
                r.error.as_deref().unwrap_or("").replace('|', "\\|")
            );
        }
    }
    let mut differ: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    for r in &ok {
        for d in &r.oracle_disagree {
            let e = differ
                .entry(r.family.as_str())
                .or_insert_with(|| (0, format!("{} → {}: {}", r.old, r.new, clip(d, 300))));
            e.0 += 1;
        }
    }
    if !differ.is_empty() {
        let _ = writeln!(
            s,
            "\n### Message instances ctxgen and the jsonschema crate judge differently\n\nPer family: how many, and the first (all are in `--json`, `oracle_disagree`):\n"
        );
        for (family, (n, first)) in differ {
            let _ = writeln!(s, "* `{family}`: {n}, e.g. {first}");
        }
    }
    for r in rows
        .iter()
        .filter(|r| !r.contradictions.is_empty() || !r.refuted.is_empty())
    {
        let _ = writeln!(
            s,
            "\n**Contradiction** `{}` {} → {}: {:?} {:?}",
            r.family,
            r.old,
            r.new,
            r.refuted,
            r.contradictions
                .iter()
                .map(|c| format!(
                    "{} {}: {}",
                    c.key,
                    c.role,
                    short(&c.counterexample.instance)
                ))
                .collect::<Vec<_>>()
        );
    }
    s
}
