//! What each language's result means: its verdict, its round trip compared with the input as
//! JSON values, and the failures of a case (disagreement with the oracle, between languages,
//! a round trip that is not exact).

use std::collections::BTreeMap;

use serde_json::{Number, Value};

use crate::drivers::Raw;
use crate::locate::Walker;

#[derive(Clone, Debug)]
pub enum Rt {
    /// Not attempted: the language rejected the instance, or failed.
    NotRun,
    Exact,
    /// The first difference that is not an applied default (else the first one).
    Differs {
        pointer: String,
        change: Change,
        detail: String,
        /// Every difference is a member the schema's `default` fills in.
        defaults_only: bool,
    },
    /// Parsing raised: `rejected` (the package's own validation error) or the error's type.
    Failed {
        kind: String,
        message: String,
    },
}

pub struct Outcome {
    /// `None` when the driver failed on the case.
    pub verdict: Option<bool>,
    pub violations: Vec<(String, String)>,
    pub error: Option<String>,
    pub rt: Rt,
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 40 {
        s
    } else {
        format!("{}…", s.chars().take(39).collect::<String>())
    }
}

fn int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Numbers equal as numbers: exactly when both are integers, else as doubles.
pub fn num_eq(a: &Number, b: &Number) -> bool {
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.as_f64() == b.as_f64(),
    }
}

/// How a round trip changed a value.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A member the input lacks, equal to the schema's `default` there.
    Default,
    Added,
    NullDropped,
    Missing,
    Changed,
    Items,
}

impl Change {
    pub fn cause(&self) -> &'static str {
        match self {
            Change::Default => "adds the schema's default",
            Change::Added => "adds a member",
            Change::NullDropped => "drops a null member",
            Change::Missing => "drops a member",
            Change::Changed => "changes a value",
            Change::Items => "changes the number of items",
        }
    }
}

/// Differences recorded per value at most.
const MAX_DIFFS: usize = 64;

/// Where `got` differs from `want` (members in `want`'s order, then members only `got` has):
/// pointer, kind, short description; at most [`MAX_DIFFS`].
pub fn differences(want: &Value, got: &Value) -> Vec<(String, Change, String)> {
    let mut out = Vec::new();
    diff(want, got, &mut String::new(), &mut out);
    out
}

fn diff(want: &Value, got: &Value, path: &mut String, out: &mut Vec<(String, Change, String)>) {
    if out.len() >= MAX_DIFFS {
        return;
    }
    match (want, got) {
        (Value::Number(a), Value::Number(b)) if num_eq(a, b) => {}
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let len = path.len();
                path.push('/');
                path.push_str(&crate::locate::escape(k));
                match b.get(k) {
                    None if v.is_null() => out.push((
                        path.clone(),
                        Change::NullDropped,
                        "null member dropped".into(),
                    )),
                    None => out.push((
                        path.clone(),
                        Change::Missing,
                        format!("member dropped (was {})", short(v)),
                    )),
                    Some(w) => diff(v, w, path, out),
                }
                path.truncate(len);
            }
            for (k, v) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                let p = format!("{path}/{}", crate::locate::escape(k));
                out.push((p, Change::Added, format!("member added: {}", short(v))));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                diff(v, w, path, out);
                path.truncate(len);
            }
            if a.len() != b.len() {
                out.push((
                    path.clone(),
                    Change::Items,
                    format!("{} items became {}", a.len(), b.len()),
                ));
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push((
            path.clone(),
            Change::Changed,
            format!("{} became {}", short(a), short(b)),
        )),
    }
}

/// The schema location that applies at `pointer` of `data` (whose parent `data` has).
fn location(walker: &Walker, data: &Value, pointer: &str) -> Option<String> {
    let mut loc = crate::locate::ROOT.to_string();
    let mut here = Some(data);
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        loc = match here {
            Some(Value::Array(items)) => {
                let i: usize = token.parse().ok()?;
                here = items.get(i);
                walker.item(&loc, i)?
            }
            _ => {
                here = here.and_then(|h| h.get(&token));
                walker.member(&loc, &token)?
            }
        };
    }
    Some(loc)
}

/// Marks the added members that are a schema `default` for them: equal to one, or to one
/// whose absent members were filled with their own defaults in turn.
fn mark_defaults(
    diffs: &mut [(String, Change, String)],
    data: &Value,
    got: &Value,
    walker: &Walker,
) {
    for (pointer, change, detail) in diffs.iter_mut().filter(|d| d.1 == Change::Added) {
        let Some(at) = pointer.rfind('/') else {
            continue;
        };
        let key = pointer[at + 1..].replace("~1", "/").replace("~0", "~");
        let (Some(parent), Some(added)) =
            (location(walker, data, &pointer[..at]), got.pointer(pointer))
        else {
            continue;
        };
        if is_default(walker, &parent, &key, added, 0) {
            *change = Change::Default;
            *detail = detail.replace("member added", "default added");
        }
    }
}

/// Whether `value`, as member `key` of an object at `parent`, is a default for it.
fn is_default(walker: &Walker, parent: &str, key: &str, value: &Value, depth: usize) -> bool {
    depth < 16
        && walker.member_all(parent, key).iter().any(|l| {
            walker
                .defaults(l)
                .iter()
                .any(|d| filled(walker, l, d, value, depth + 1))
        })
}

/// Whether `got` is `default` with absent members filled by their own defaults.
fn filled(walker: &Walker, loc: &str, default: &Value, got: &Value, depth: usize) -> bool {
    if first_is_equal(default, got) {
        return true;
    }
    let (Value::Object(d), Value::Object(g)) = (default, got) else {
        return false;
    };
    d.keys().all(|k| g.contains_key(k))
        && g.iter().all(|(k, gv)| match d.get(k) {
            Some(dv) => {
                first_is_equal(dv, gv)
                    || walker
                        .member_all(loc, k)
                        .iter()
                        .any(|l| filled(walker, l, dv, gv, depth + 1))
            }
            None => is_default(walker, loc, k, gv, depth),
        })
}

fn first_is_equal(a: &Value, b: &Value) -> bool {
    differences(a, b).is_empty()
}

pub fn outcome(raw: Raw, data: &Value, walker: Option<&Walker>) -> Outcome {
    let verdict = match (&raw.error, &raw.violations) {
        (None, Some(v)) => Some(v.is_empty()),
        _ => None,
    };
    let rt = match (&raw.rt, raw.rt_error) {
        (_, Some((kind, message))) => Rt::Failed { kind, message },
        (Some(back), None) => {
            let mut diffs = differences(data, back);
            if let Some(walker) = walker {
                mark_defaults(&mut diffs, data, back, walker);
            }
            let defaults_only = diffs.iter().all(|d| d.1 == Change::Default);
            // The first difference that is not an applied default, else the first.
            match diffs
                .iter()
                .find(|d| d.1 != Change::Default)
                .or(diffs.first())
            {
                None => Rt::Exact,
                Some((pointer, change, detail)) => Rt::Differs {
                    pointer: pointer.clone(),
                    change: change.clone(),
                    detail: detail.clone(),
                    defaults_only,
                },
            }
        }
        (None, None) => Rt::NotRun,
    };
    Outcome {
        verdict,
        violations: raw.violations.unwrap_or_default(),
        error: raw.error,
        rt,
    }
}

/// One case and what every language made of it (its data is gone).
pub struct Record {
    pub schema: String,
    /// The instance path, `#m<k>` appended for a mutant.
    pub id: String,
    /// The mutation, for a mutant.
    pub mutant: Option<String>,
    /// `None` when the oracle is unavailable for the schema.
    pub oracle: Option<bool>,
    pub oracle_first: Option<(String, String, String)>,
    pub format_sensitive: bool,
    pub expects: Option<bool>,
    pub langs: BTreeMap<String, Outcome>,
}

impl Record {
    /// Whether a round trip is expected: valid for the oracle (or, without one, for the
    /// language itself).
    pub fn round_trip_due(&self, lang: &str) -> bool {
        match self.oracle {
            Some(v) => v,
            None => self.langs.get(lang).and_then(|o| o.verdict) == Some(true),
        }
    }
}

pub struct Failure {
    /// `verdict` (a language against the oracle), `cross` (between languages), `roundtrip`.
    pub kind: &'static str,
    pub cause: String,
    pub lang: String,
    pub schema: String,
    pub id: String,
    pub pointer: String,
    pub detail: String,
}

impl Failure {
    /// The line that lists this failure in a baseline file.
    pub fn key(&self) -> String {
        format!("{} {} {} {}", self.kind, self.lang, self.schema, self.id)
    }
}

fn show(v: &[(String, String)]) -> String {
    v.first()
        .map(|(p, k)| format!("{k} at \"{p}\""))
        .unwrap_or_else(|| "no violation".into())
}

pub fn failures(r: &Record) -> Vec<Failure> {
    let mut out = Vec::new();
    let fail = |kind, cause: String, lang: &str, pointer: String, detail: String| Failure {
        kind,
        cause,
        lang: lang.to_string(),
        schema: r.schema.clone(),
        id: r.id.clone(),
        pointer,
        detail,
    };
    for (lang, o) in &r.langs {
        match (o.verdict, r.oracle) {
            (None, _) => {
                let e = o.error.clone().unwrap_or_default();
                let cause = format!("driver error: {}", e.split(':').next().unwrap_or(""));
                out.push(fail("verdict", cause, lang, String::new(), e));
            }
            (Some(false), Some(true)) => {
                let p = o
                    .violations
                    .first()
                    .map(|v| v.0.clone())
                    .unwrap_or_default();
                let k = o
                    .violations
                    .first()
                    .map(|v| v.1.clone())
                    .unwrap_or_default();
                let cause = format!("rejects a valid instance ({k})");
                out.push(fail("verdict", cause, lang, p, show(&o.violations)));
            }
            (Some(true), Some(false)) => {
                let (p, k, m) = r.oracle_first.clone().unwrap_or_default();
                let cause = format!("accepts an invalid instance ({k})");
                out.push(fail("verdict", cause, lang, p, m));
            }
            _ => {}
        }
        if !r.round_trip_due(lang) || o.verdict != Some(true) {
            continue;
        }
        match &o.rt {
            Rt::Exact => {}
            Rt::Differs {
                pointer,
                change,
                detail,
                ..
            } => out.push(fail(
                "roundtrip",
                format!("round trip {}", change.cause()),
                lang,
                pointer.clone(),
                detail.clone(),
            )),
            Rt::Failed { kind, message } => {
                let cause = if kind == "rejected" {
                    "parse rejects what validate accepts".to_string()
                } else {
                    format!("parse raised {kind}")
                };
                out.push(fail(
                    "roundtrip",
                    cause,
                    lang,
                    String::new(),
                    message.clone(),
                ));
            }
            Rt::NotRun => out.push(fail(
                "roundtrip",
                "no round trip".into(),
                lang,
                String::new(),
                o.error.clone().unwrap_or_default(),
            )),
        }
    }
    if let Some((cause, pointer, detail)) = cross(r) {
        out.push(fail("cross", cause, "*", pointer, detail));
    }
    out
}

/// How the languages that gave a verdict disagree, if they do.
pub fn cross(r: &Record) -> Option<(String, String, String)> {
    let given: Vec<(&String, &Outcome)> = r
        .langs
        .iter()
        .filter(|(_, o)| o.verdict.is_some())
        .collect();
    let (first_lang, first) = given.first()?;
    let verdicts = |g: &[(&String, &Outcome)]| {
        g.iter()
            .map(|(l, o)| {
                format!(
                    "{l} {}",
                    if o.verdict == Some(true) {
                        "valid"
                    } else {
                        "invalid"
                    }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if given.iter().any(|(_, o)| o.verdict != first.verdict) {
        let pointer = given
            .iter()
            .find_map(|(_, o)| o.violations.first().map(|v| v.0.clone()))
            .unwrap_or_default();
        return Some(("verdicts differ".into(), pointer, verdicts(&given)));
    }
    let sorted = |o: &Outcome| {
        let mut v = o.violations.clone();
        v.sort();
        v
    };
    let base = sorted(first);
    for (lang, o) in &given[1..] {
        let other = sorted(o);
        if other == base {
            continue;
        }
        let only_a = base.iter().find(|v| !other.contains(v));
        let only_b = other.iter().find(|v| !base.contains(v));
        let (p, detail) = match (only_a, only_b) {
            (Some(a), _) => (
                a.0.clone(),
                format!("{first_lang} has {} at \"{}\", {lang} not", a.1, a.0),
            ),
            (None, Some(b)) => (
                b.0.clone(),
                format!("{lang} has {} at \"{}\", {first_lang} not", b.1, b.0),
            ),
            (None, None) => (
                String::new(),
                format!("{first_lang} and {lang} repeat violations differently"),
            ),
        };
        return Some(("violations differ".into(), p, detail));
    }
    None
}
