//! The report for people (a grouped table, colored on a terminal) and for tools (JSON).

use std::fmt::Write;

use super::{Outcome, Report, Status, TypeReport, Verdict};

struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn outcome(&self, o: Outcome) -> String {
        match o {
            Outcome::Compatible => self.wrap("32", "compatible"),
            Outcome::Unconfirmed => self.wrap("33", "possibly breaking (unconfirmed)"),
            Outcome::Incompatible => self.wrap("1;31", "INCOMPATIBLE"),
        }
    }
    fn bold(&self, s: &str) -> String {
        self.wrap("1", s)
    }
}

/// The machine-readable report (see docs/evolution.md for the fields).
pub fn json(r: &Report) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The human-readable report.
pub fn text(r: &Report, color: bool) -> String {
    let p = Paint { on: color };
    let mut o = String::new();
    let _ = writeln!(o, "{} {} → {}", p.bold("ctxgen diff"), r.old, r.new);
    let _ = writeln!(
        o,
        "reader = old producers → new consumers; writer = new producers → old consumers (unknown fields: {})",
        r.unknown_fields
    );
    let _ = writeln!(o);
    let _ = writeln!(o, "{}", p.bold("Wire"));
    if r.types.is_empty() {
        let _ = writeln!(
            o,
            "  no type accepts a different set of instances ({} unchanged)",
            r.unchanged_types
        );
    }
    let mut types: Vec<&TypeReport> = r.types.iter().collect();
    types.sort_by_key(|t| (rank(t), !t.root, t.key.clone()));
    for t in types {
        let status = match t.status {
            Status::Changed => "",
            Status::Added => " (added)",
            Status::Removed => " (removed)",
        };
        let root = if t.root { " [message]" } else { "" };
        let _ = writeln!(o, "  {}{status}{root}  {}", p.bold(&t.name), t.key);
        let _ = writeln!(
            o,
            "    reader: {}   writer: {}",
            verdict_line(&p, &t.reader),
            verdict_line(&p, &t.writer)
        );
        for c in &t.changes {
            let path = if c.path.is_empty() {
                "(value)"
            } else {
                &c.path
            };
            let _ = writeln!(
                o,
                "    {path:<28} {:<28} {}  [reader {}, writer {}]",
                c.class,
                c.detail,
                effect(c.reader),
                effect(c.writer)
            );
        }
        if t.changes.is_empty() {
            let _ = writeln!(o, "    (changed through a type it refers to)");
        }
        for (role, v) in [("reader", &t.reader), ("writer", &t.writer)] {
            if let Some(cx) = &v.counterexample {
                let vs: Vec<String> = cx
                    .violations
                    .iter()
                    .map(|v| format!("{} at \"{}\"", v.keyword, v.pointer))
                    .collect();
                let _ = writeln!(
                    o,
                    "    counterexample ({role}): accepted by {}, rejected by {} ({}):",
                    cx.accepted_by,
                    cx.rejected_by,
                    vs.join(", ")
                );
                let inst = serde_json::to_string(&cx.instance).unwrap_or_default();
                let inst = if inst.chars().count() > 400 {
                    format!("{}…", inst.chars().take(400).collect::<String>())
                } else {
                    inst
                };
                let _ = writeln!(o, "      {inst}");
                if let Some(r) = &cx.consumer_reads {
                    let _ = writeln!(
                        o,
                        "      (the {} consumer reads `{}` as its own {})",
                        cx.rejected_by, r.property, r.value
                    );
                }
            }
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "{}", p.bold("Generated APIs"));
    for lang in ["rust", "typescript", "python"] {
        let changes: Vec<_> = r.api.iter().filter(|c| c.lang == lang).collect();
        let bump = r
            .version
            .api
            .get(lang)
            .map(|b| b.to_string())
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  {lang}: {} change(s), needs a {bump} release",
            changes.len()
        );
        for c in changes {
            let mark = if c.breaking {
                p.wrap("31", "breaking")
            } else {
                p.wrap("32", "compatible")
            };
            let _ = writeln!(o, "    {:<40} {:<20} {mark}  {}", c.item, c.kind, c.detail);
        }
    }
    let _ = writeln!(o);
    let v = &r.version;
    let _ = writeln!(o, "{}", p.bold("Version"));
    let show = |x: &Option<super::Version>, s: &Option<String>| match (x, s) {
        (Some(x), Some(s)) => format!("{x} ({s})"),
        _ => "not declared".to_string(),
    };
    let _ = writeln!(o, "  old: {}", show(&v.old, &v.old_source));
    let _ = writeln!(o, "  new: {}", show(&v.new, &v.new_source));
    let apis: Vec<String> = v.api.iter().map(|(l, b)| format!("{l} {b}")).collect();
    let _ = writeln!(
        o,
        "  required: {} (wire: {}; {})",
        p.bold(&v.required.to_string()),
        v.wire,
        apis.join(", ")
    );
    let verdict = if v.ok {
        p.wrap("32", "ok")
    } else {
        p.wrap("1;31", "FAIL")
    };
    let _ = writeln!(o, "  {verdict}: {}", v.message);
    let _ = writeln!(o, "  {} instance(s) checked", r.instances_checked);
    o
}

fn rank(t: &TypeReport) -> u8 {
    let worst = [t.reader.outcome, t.writer.outcome];
    if worst.contains(&Outcome::Incompatible) {
        0
    } else if worst.contains(&Outcome::Unconfirmed) {
        1
    } else {
        2
    }
}

fn verdict_line(p: &Paint, v: &Verdict) -> String {
    if v.checked > 0 {
        format!("{} ({} checked)", p.outcome(v.outcome), v.checked)
    } else {
        p.outcome(v.outcome)
    }
}

fn effect(e: super::Effect) -> &'static str {
    match e {
        super::Effect::Safe => "safe",
        super::Effect::Unknown => "unknown",
        super::Effect::Breaking => "breaking",
    }
}
