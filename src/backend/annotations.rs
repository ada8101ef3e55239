//! The helper annotations (`x-path-hierarchy`, `x-quality-score`, `x-bands`, …; see
//! `schemas/README.md`) are checked once, before any language is written: an annotation of the
//! wrong shape, naming properties that are absent, optional or of the wrong type, or holding a
//! pattern that does not compile, is an error naming the schema location, never generated code
//! that does not build or import.

use serde_json::Value;

use crate::error::{Error, Result};
use crate::ir::names::{self, Lang};
use crate::ir::{Ir, Ty, TypeId, TypeKind};

/// Checks every helper annotation of the IR.
pub fn check(ir: &Ir) -> Result<()> {
    for (id, t) in ir.types.iter().enumerate() {
        let at = |key: &str, problem: String| {
            Error::schema(t.origin.clone(), format!("{key}: {problem}"))
        };
        for (key, v) in &t.annotations {
            let r = match key.as_str() {
                "x-path-hierarchy" => path(v),
                "x-quality-score" => quality(ir, id, v),
                "x-handoff" => handoff(ir, id, v),
                "x-percent-full" => percent_full(ir, id, v),
                "x-task-match" => task_match(ir, id, v),
                "x-fallback" => fallback(ir, id, v),
                _ => Ok(()),
            };
            r.map_err(|p| at(key, p))?;
        }
        if let TypeKind::Struct(s) = &t.kind {
            for f in &s.fields {
                for (key, v) in &f.annotations {
                    let r = match key.as_str() {
                        "x-semver-compatibility" if v.as_str() != Some("same-major") => {
                            Err("the only value is \"same-major\"".to_string())
                        }
                        "x-bands" => bands(v, &resolve(ir, &f.ty)),
                        "x-freshness" => freshness(v),
                        _ => Ok(()),
                    };
                    r.map_err(|p| at(key, format!("on property {:?}: {p}", f.wire)))?;
                }
            }
        }
    }
    Ok(())
}

type Check = std::result::Result<(), String>;

fn obj(v: &Value) -> std::result::Result<&serde_json::Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("must be an object, not {v}"))
}

fn string<'a>(
    o: &'a serde_json::Map<String, Value>,
    k: &str,
) -> std::result::Result<&'a str, String> {
    match o.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(other) => Err(format!("`{k}` must be a non-empty string, not {other}")),
        None => Err(format!("`{k}` is missing")),
    }
}

fn integer(o: &serde_json::Map<String, Value>, k: &str) -> Check {
    match o.get(k) {
        Some(v) if v.as_i64().is_some() => Ok(()),
        Some(other) => Err(format!("`{k}` must be an integer, not {other}")),
        None => Err(format!("`{k}` is missing")),
    }
}

/// The type of the required property at a JSON Pointer of required properties below `id`.
fn field_at(ir: &Ir, id: TypeId, pointer: &str) -> std::result::Result<Ty, String> {
    let mut cur = id;
    let mut ty = None;
    for token in pointer.strip_prefix('/').unwrap_or(pointer).split('/') {
        if token.contains('~') {
            return Err(format!(
                "`{pointer}`: escaped pointer tokens are not supported"
            ));
        }
        let TypeKind::Struct(s) = &ir.types[cur].kind else {
            return Err(format!("`{pointer}` does not name an object property"));
        };
        let f = s
            .fields
            .iter()
            .find(|f| f.wire == token)
            .ok_or_else(|| format!("`{pointer}`: no property {token:?}"))?;
        if !f.required {
            return Err(format!("`{pointer}`: property {token:?} is not required"));
        }
        if let Ty::Named(n) = &f.ty {
            cur = *n;
        }
        ty = Some(f.ty.clone());
    }
    ty.ok_or_else(|| format!("`{pointer}` names no property"))
}

/// The type, with aliases of other names and enums of strings resolved.
fn resolve(ir: &Ir, t: &Ty) -> Ty {
    let mut t = t.clone();
    for _ in 0..16 {
        match &t {
            Ty::Named(n) => match &ir.types[*n].kind {
                TypeKind::Alias(a) if *a != Ty::Named(*n) => t = a.clone(),
                TypeKind::Enum(_) => return Ty::String,
                _ => return t,
            },
            _ => return t,
        }
    }
    t
}

/// The type of the required property `name` of `id`.
fn field_named(ir: &Ir, id: TypeId, name: &str) -> std::result::Result<Ty, String> {
    let TypeKind::Struct(s) = &ir.types[id].kind else {
        return Err(format!("{name:?} is no object property"));
    };
    match s.fields.iter().find(|f| f.wire == name) {
        Some(f) if f.required => Ok(f.ty.clone()),
        Some(_) => Err(format!("property {name:?} is not required")),
        None => Err(format!("no property {name:?}")),
    }
}

/// Checks the type of the property `name`.
fn expect_named(ir: &Ir, id: TypeId, name: &str, want: &Ty, what: &str) -> Check {
    let got = resolve(ir, &field_named(ir, id, name)?);
    if got == *want || (*want == Ty::Integer && got == Ty::WideInteger) {
        Ok(())
    } else {
        Err(format!("property {name:?} must be {what}"))
    }
}

fn expect(ir: &Ir, id: TypeId, pointer: &str, want: &Ty, what: &str) -> Check {
    let ty = field_at(ir, id, pointer)?;
    if resolve(ir, &ty) == *want {
        Ok(())
    } else {
        Err(format!("`{pointer}` must be {what}"))
    }
}

fn path(v: &Value) -> Check {
    let o = obj(v)?;
    if o.contains_key("separator") {
        string(o, "separator")?;
    }
    for k in ["maxDepth", "maxLength"] {
        if let Some(x) = o.get(k) {
            x.as_u64()
                .ok_or_else(|| format!("`{k}` must be a non-negative integer, not {x}"))?;
        }
    }
    if o.contains_key("segmentPattern") {
        let p = string(o, "segmentPattern")?;
        regress::Regex::with_flags(p, "u")
            .map_err(|e| format!("`segmentPattern` is not a valid pattern: {e}"))?;
    }
    Ok(())
}

fn labels(list: &[&str]) -> Check {
    let mut seen = std::collections::HashSet::new();
    for l in list {
        if l.is_empty() || !seen.insert(*l) {
            return Err(format!("labels must be distinct non-empty strings ({l:?})"));
        }
    }
    Ok(())
}

fn quality(ir: &Ir, id: TypeId, v: &Value) -> Check {
    let o = obj(v)?;
    let issues = string(o, "issues")?;
    let severity = string(o, "severity")?;
    let deductions = o
        .get("deductions")
        .and_then(Value::as_object)
        .filter(|d| !d.is_empty())
        .ok_or("`deductions` must be a non-empty object")?;
    let counts = o
        .get("counts")
        .and_then(Value::as_object)
        .ok_or("`counts` must be an object")?;
    let blocking = o
        .get("blocking")
        .and_then(Value::as_array)
        .ok_or("`blocking` must be an array")?;
    if let Some(f) = o.get("floor") {
        f.as_f64().ok_or("`floor` must be a number")?;
    }
    let mut fields = std::collections::HashSet::new();
    for (label, d) in deductions {
        d.as_f64()
            .ok_or_else(|| format!("the deduction of {label:?} must be a number"))?;
        if !fields.insert(names::field_name(Lang::Rust, label))
            || !fields.insert(names::field_name(Lang::Python, label) + " py")
        {
            return Err(format!("severity {label:?} has the name of another"));
        }
        let count = counts
            .get(label)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`counts` names no property for {label:?}"))?;
        expect_named(ir, id, count, &Ty::Integer, "an integer")?;
    }
    if counts.len() != deductions.len() {
        return Err("`counts` and `deductions` must have the same severities".into());
    }
    for b in blocking {
        let b = b.as_str().ok_or("`blocking` must hold strings")?;
        if !deductions.contains_key(b) {
            return Err(format!("blocking severity {b:?} has no deduction"));
        }
    }
    let item = match resolve(ir, &field_named(ir, id, issues)?) {
        Ty::Array(item) => match *item {
            Ty::Named(n) => n,
            _ => return Err(format!("`{issues}` must be an array of objects")),
        },
        _ => return Err(format!("`{issues}` must be an array")),
    };
    expect_named(ir, item, severity, &Ty::String, "a string")?;
    expect_named(ir, id, string(o, "score")?, &Ty::Number, "a number")?;
    expect_named(ir, id, string(o, "passed")?, &Ty::Bool, "a boolean")
}

fn handoff(ir: &Ir, id: TypeId, v: &Value) -> Check {
    let o = obj(v)?;
    let source = resolve(ir, &field_at(ir, id, string(o, "sourceFamily")?)?);
    let target = resolve(ir, &field_at(ir, id, string(o, "targetFamily")?)?);
    if source != target {
        return Err("`sourceFamily` and `targetFamily` must have one type".into());
    }
    expect(ir, id, string(o, "session")?, &Ty::String, "a string")
}

fn percent_full(ir: &Ir, id: TypeId, v: &Value) -> Check {
    let o = obj(v)?;
    for k in ["used", "available"] {
        expect_named(ir, id, string(o, k)?, &Ty::Integer, "an integer")?;
    }
    Ok(())
}

fn task_match(ir: &Ir, id: TypeId, v: &Value) -> Check {
    let o = obj(v)?;
    for k in [
        "canStartPoints",
        "projectPoints",
        "freeAbovePercent",
        "freePoints",
        "freeBelowPercent",
        "fullPoints",
    ] {
        integer(o, k)?;
    }
    let can_start = string(o, "canStart")?;
    expect(
        ir,
        id,
        can_start,
        &Ty::Array(Box::new(Ty::String)),
        "an array of strings",
    )?;
    let projects = string(o, "projects")?;
    let Ty::Array(item) = resolve(ir, &field_at(ir, id, projects)?) else {
        return Err(format!("`{projects}` must be an array of objects"));
    };
    let Ty::Named(project) = *item else {
        return Err(format!("`{projects}` must be an array of objects"));
    };
    let key = string(o, "projectKey")?;
    expect_named(ir, project, key, &Ty::String, "a string")?;
    let window = string(o, "window")?;
    let Ty::Named(w) = resolve(ir, &field_at(ir, id, window)?) else {
        return Err(format!("`{window}` must be an object"));
    };
    match ir.types[w]
        .annotations
        .iter()
        .find(|(k, _)| k == "x-percent-full")
    {
        Some((_, pf)) => percent_full(ir, w, pf),
        None => Err(format!(
            "`{window}` must be an object with `x-percent-full`"
        )),
    }
}

fn fallback(ir: &Ir, id: TypeId, v: &Value) -> Check {
    if !matches!(ir.types[id].kind, TypeKind::Struct(_) | TypeKind::Union(_)) {
        return Err("only an object type can have a fallback".into());
    }
    if !crate::backend::holds::holds_type(ir, id, v) {
        return Err(format!("{v} is not a value of the type"));
    }
    Ok(())
}

fn bands(v: &Value, ty: &Ty) -> Check {
    if !matches!(ty, Ty::Number | Ty::Integer | Ty::WideInteger) {
        return Err("only a number property can have bands".into());
    }
    let list = v
        .as_array()
        .filter(|l| !l.is_empty())
        .ok_or("must be a non-empty array")?;
    let mut all = Vec::new();
    for b in list {
        let b = obj(b)?;
        b.get("min")
            .and_then(Value::as_f64)
            .ok_or("every band needs a number `min`")?;
        all.push(string(b, "label")?);
    }
    labels(&all)
}

fn freshness(v: &Value) -> Check {
    let o = obj(v)?;
    let list = o
        .get("bands")
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
        .ok_or("`bands` must be a non-empty array")?;
    let mut all = Vec::new();
    for b in list {
        let b = obj(b)?;
        let d = match (b.get("below"), b.get("atMost")) {
            (Some(d), None) | (None, Some(d)) => d,
            _ => return Err("every band needs one of `below` and `atMost`".into()),
        };
        let d = d.as_str().ok_or("a band's duration must be a string")?;
        if !is_duration(d) {
            return Err(format!("{d:?} is not a duration of the form PT…H…M…S"));
        }
        all.push(string(b, "label")?);
    }
    all.push(string(o, "otherwise")?);
    labels(&all)
}

/// `PT` then numbers with `H`, `M`, `S` (what every language's helper reads).
fn is_duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("PT") else {
        return false;
    };
    let mut digits = 0;
    let mut units = 0;
    for c in rest.chars() {
        match c {
            '0'..='9' => digits += 1,
            'H' | 'M' | 'S' if digits > 0 && digits < 10 => {
                digits = 0;
                units += 1;
            }
            _ => return false,
        }
    }
    digits == 0 && units > 0
}
