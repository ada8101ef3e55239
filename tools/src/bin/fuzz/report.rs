//! What a run found: one record per mutant, a summary table and the JSONL failure log.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use super::exec::Class;
use crate::corpus::Verdict;

#[derive(Debug, Clone)]
pub struct Record {
    pub index: u64,
    pub seed: u64,
    pub origin: String,
    pub notes: Vec<String>,
    pub files: Vec<String>,
    pub class: Class,
    pub detail: String,
    pub secs: f64,
    /// Build verdicts, when the mutant was in the build sample.
    pub build: BTreeMap<&'static str, Verdict>,
}

impl Record {
    pub fn build_failures(&self) -> Vec<(&'static str, &str)> {
        self.build
            .iter()
            .filter(|(k, _)| **k != "too-large")
            .filter_map(|(k, v)| match v {
                Verdict::Fail(m) => Some((*k, m.as_str())),
                Verdict::Pass => None,
            })
            .collect()
    }

    /// One JSONL line per failure of this record (generation, then each failed check).
    pub fn failure_lines(&self) -> Vec<String> {
        let base = |class: &str, check: Option<&str>, detail: &str| {
            json!({
                "seed": self.seed,
                "index": self.index,
                "class": class,
                "check": check,
                "detail": detail,
                "origin": self.origin,
                "files": self.files,
                "mutations": self.notes,
                "secs": (self.secs * 1000.0).round() / 1000.0,
            })
            .to_string()
        };
        let mut out = Vec::new();
        if self.class.is_failure() {
            out.push(base(self.class.name(), None, &self.detail));
        }
        for (check, msg) in self.build_failures() {
            out.push(base("does-not-build", Some(check), msg));
        }
        out
    }
}

/// The summary: counts per class, build verdicts per check, distinct failures.
pub fn summary(records: &[Record], seconds: f64) -> String {
    let mut s = String::new();
    let total = records.len();
    let _ = writeln!(s, "\n{total} mutant(s) in {seconds:.0} s\n");
    let _ = writeln!(s, "| generation | mutants | share |\n|---|---:|---:|");
    for c in Class::ALL {
        let n = records.iter().filter(|r| r.class == c).count();
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        };
        let _ = writeln!(s, "| {} | {n} | {pct:.1}% |", c.name());
    }
    let built: Vec<&Record> = records.iter().filter(|r| !r.build.is_empty()).collect();
    if !built.is_empty() {
        let large = built
            .iter()
            .filter(|r| r.build.contains_key("too-large"))
            .count();
        let _ = writeln!(
            s,
            "\n| build check ({} ok mutants checked) | pass | fail |\n|---|---:|---:|",
            built.len() - large
        );
        if large > 0 {
            let _ = writeln!(
                s,
                "| (sampled, not checked: over 3 MB of output, replaced by the next) | | {large} |"
            );
        }
        for check in super::build::CHECKS {
            let pass = built
                .iter()
                .filter(|r| r.build.get(check) == Some(&Verdict::Pass))
                .count();
            let fail = built
                .iter()
                .filter(|r| matches!(r.build.get(check), Some(Verdict::Fail(_))))
                .count();
            let _ = writeln!(s, "| {check} | {pass} | {fail} |");
        }
        let all = built
            .iter()
            .filter(|r| r.build_failures().is_empty() && !r.build.contains_key("too-large"))
            .count();
        let _ = writeln!(s, "| all checks | {all} | {} |", built.len() - all - large);
    }
    let mut kinds: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
    for r in records {
        if r.class.is_failure() {
            kinds
                .entry(format!("{}: {}", r.class.name(), signature(&r.detail)))
                .or_default()
                .push(r);
        }
        for (check, msg) in r.build_failures() {
            kinds
                .entry(format!("does-not-build {check}: {}", signature(msg)))
                .or_default()
                .push(r);
        }
    }
    if !kinds.is_empty() {
        let _ = writeln!(
            s,
            "\n| failure kind | mutants | first seed |\n|---|---:|---|"
        );
        for (kind, rs) in &kinds {
            let kind: String = kind.replace('|', "\\|").chars().take(200).collect();
            let _ = writeln!(s, "| {kind} | {} | {} |", rs.len(), rs[0].seed);
        }
    }
    s
}

/// A failure message with the parts that vary between mutants (numbers, quoted names, paths of
/// generated packages) blurred, so that the same bug groups together.
pub fn signature(detail: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut last_digit = false;
    for c in detail.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
                out.push(c);
            }
            continue;
        }
        if c == '`' || c == '"' {
            quote = Some(c);
            out.push(c);
            out.push('…');
            continue;
        }
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
            continue;
        }
        last_digit = false;
        out.push(c);
    }
    // Paths of the schema files differ per mutant: keep what follows the last ": ".
    let out = match (out.find(".json"), out.rfind(": ")) {
        (Some(j), Some(k)) if j < k => out[k + 2..].to_string(),
        _ => out,
    };
    out.chars().take(160).collect()
}
