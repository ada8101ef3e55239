//! `src/helpers.ts`: helper functions driven by the schema annotations (`x-…`), specified in
//! `tests/vectors/helpers/README.md`. Each annotation kind gives one group of helpers, with the
//! parameters read from the annotation; a group is emitted only when some schema carries it.

use std::collections::BTreeMap;

use askama::Template;
use serde_json::Value;

use super::{fits, num_lit, str_lit, ts_literal, Ctx, Import, GENERATED};
use crate::backend::escape::typescript::{line, Line};
use crate::ir::names;
use crate::ir::{Check, NodeId, Ty, TypeId, TypeKind};

#[derive(Template)]
#[template(path = "typescript/helpers.ts.j2", escape = "none")]
pub(crate) struct HelpersView {
    header: &'static str,
    imports: Vec<Import>,
    path: Option<PathHelpers>,
    collections: Option<Collections>,
    quality: Option<Quality>,
    semver: Option<Semver>,
    bands: Option<Bands>,
    handoff: Option<Handoff>,
    percent: Option<PercentFull>,
    freshness: Option<Freshness>,
    task: Option<TaskMatch>,
    fallbacks: Vec<Fallback>,
    sv_fn: String,
    band_type: String,
    band_fn: String,
    bands_inline: bool,
    flows: super::flows::FlowsCtx,
    /// Every name the file exports.
    pub exports: Vec<String>,
}

struct PathHelpers {
    /// The path type, for the doc comments.
    type_name: String,
    separator: String,
    max_depth: String,
    max_length: String,
    segment: String,
}

struct Collections {
    /// The message type and the property holding its path.
    type_name: String,
    field: String,
    /// Whether each signature fits on one line: tree, children, main, roots.
    inline: [bool; 4],
}

struct Quality {
    report: String,
    issue: String,
    issues_field: String,
    severity_field: String,
    /// (severity literal, key as a property name, deduction literal).
    deductions: Vec<(String, String, String)>,
    floor: String,
    blocking: Vec<String>,
    /// (severity key, stated count field literal).
    counts: Vec<(String, String)>,
    score_field: String,
    passed_field: String,
}

struct Semver {
    owner: String,
    field: Line,
    /// The property name as words of a function name (`SchemaVersion`).
    camel: String,
}

struct Bands {
    owner: String,
    field: Line,
    /// (min literal, label literal), highest first.
    bands: Vec<(String, String)>,
    labels: Vec<String>,
    min: Option<String>,
    max: Option<String>,
}

struct Handoff {
    type_name: String,
    source: Vec<String>,
    target: Vec<String>,
    session: Vec<String>,
}

struct PercentFull {
    type_name: String,
    used: String,
    available: String,
}

struct Freshness {
    owner: String,
    field: Line,
    /// (inclusive, bound in seconds, label literal).
    bands: Vec<(bool, String, String)>,
    otherwise: String,
    labels: Vec<String>,
}

struct TaskMatch {
    type_name: String,
    can_start: Vec<String>,
    can_start_points: String,
    projects: Vec<String>,
    project_key: String,
    project_points: String,
    window: Vec<String>,
    used: String,
    available: String,
    free_above: String,
    free_points: String,
    free_below: String,
    full_points: String,
}

struct Fallback {
    type_name: String,
    is_fn: String,
    valid_fn: String,
    fallback_fn: String,
    normalize_fn: String,
    value: String,
    /// `key: value` of each top-level property, when the value does not fit on one line.
    entries: Option<Vec<String>>,
    keys: Vec<String>,
    keys_inline: bool,
    keys_const: String,
    /// The validity test fits on the `return` line.
    return_inline: bool,
    valid_break: bool,
    normalize_break: bool,
}

fn ann<'v>(list: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn n(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_f64).map(num_lit)
}

/// The reference tokens of a JSON Pointer, as string literals.
fn keys(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| str_lit(&t.replace("~1", "/").replace("~0", "~")))
        .collect()
}

/// Seconds of an ISO 8601 duration made of days, hours, minutes and seconds.
fn duration_seconds(d: &str) -> Option<u64> {
    let rest = d.strip_prefix('P')?;
    let (date, time) = rest.split_once('T').unwrap_or((rest, ""));
    let mut total = 0u64;
    let mut take = |part: &str, units: &[(char, u64)]| -> Option<()> {
        let mut num = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() {
                num.push(c);
            } else {
                let (_, mult) = units.iter().find(|(u, _)| *u == c)?;
                total += num.parse::<u64>().ok()? * mult;
                num.clear();
            }
        }
        num.is_empty().then_some(())
    };
    take(date, &[('W', 604_800), ('D', 86_400)])?;
    take(time, &[('H', 3_600), ('M', 60), ('S', 1)])?;
    Some(total)
}

impl Ctx<'_> {
    fn lower_first(name: &str) -> String {
        let mut c = name.chars();
        c.next()
            .map(|f| f.to_lowercase().chain(c).collect())
            .unwrap_or_default()
    }

    /// Numeric bounds of a type's node (following `$ref`s).
    fn bounds(&self, node: NodeId, min: &mut Option<f64>, max: &mut Option<f64>, depth: usize) {
        if depth > 16 {
            return;
        }
        for c in &self.ir.program.nodes[node].checks {
            match c {
                Check::Minimum(x) => *min = Some(min.map_or(*x, |m| m.max(*x))),
                Check::Maximum(x) => *max = Some(max.map_or(*x, |m| m.min(*x))),
                Check::Ref(n) => self.bounds(*n, min, max, depth + 1),
                _ => {}
            }
        }
    }
}

pub(crate) fn view(ctx: &Ctx) -> Option<HelpersView> {
    let ir = ctx.ir;
    let mut used_types: BTreeMap<TypeId, ()> = BTreeMap::new();
    let mut used_fns: BTreeMap<TypeId, Vec<String>> = BTreeMap::new();
    let mut v = HelpersView {
        header: GENERATED,
        imports: Vec::new(),
        path: None,
        collections: None,
        quality: None,
        semver: None,
        bands: None,
        handoff: None,
        percent: None,
        freshness: None,
        task: None,
        fallbacks: Vec::new(),
        sv_fn: String::new(),
        band_type: String::new(),
        band_fn: String::new(),
        bands_inline: true,
        flows: match crate::backend::flows::read(ir) {
            Ok(f) => super::flows::context(ctx, &f),
            Err(_) => super::flows::FlowsCtx::default(),
        },
        exports: Vec::new(),
    };
    for t in &v.flows.types {
        used_types.insert(*t, ());
    }
    for (t, f) in &v.flows.functions {
        let fns = used_fns.entry(*t).or_default();
        if !fns.contains(f) {
            fns.push(f.clone());
        }
    }
    // Path types and the object types holding a field of such a type.
    let mut path_type = None;
    for (id, t) in ir.types.iter().enumerate() {
        if let Some(a) = ann(&t.annotations, "x-path-hierarchy") {
            if v.path.is_none() {
                path_type = Some(id);
                v.path = Some(PathHelpers {
                    type_name: ctx.names[id].clone(),
                    separator: str_lit(&s(a, "separator").unwrap_or_else(|| "/".into())),
                    max_depth: n(a, "maxDepth").unwrap_or_else(|| "Infinity".into()),
                    max_length: n(a, "maxLength").unwrap_or_else(|| "Infinity".into()),
                    segment: str_lit(&s(a, "segmentPattern").unwrap_or_else(|| "^.+$".into())),
                });
            }
        }
    }
    for (id, t) in ir.types.iter().enumerate() {
        let TypeKind::Struct(st) = &t.kind else {
            continue;
        };
        if let Some(p) = path_type {
            if v.collections.is_none() {
                if let Some(f) = st
                    .fields
                    .iter()
                    .find(|f| matches!(&f.ty, Ty::Named(n) if *n == p))
                {
                    used_types.insert(id, ());
                    let t = &ctx.names[id];
                    let sig = |f: &str, more: &str| {
                        fits(
                            0,
                            &format!(
                                "export function {f}(messages: readonly {t}[]{more}): {t}[] {{"
                            ),
                        )
                    };
                    v.collections = Some(Collections {
                        inline: [
                            sig("getContextTree", ", root: string"),
                            sig("getDirectChildren", ", parent: string"),
                            sig("mainContextOnly", ""),
                            sig("getRootContexts", ""),
                        ],
                        type_name: t.clone(),
                        field: str_lit(&f.wire),
                    });
                }
            }
        }
        for f in &st.fields {
            if let Some(a) = ann(&f.annotations, "x-semver-compatibility") {
                if a.as_str() == Some("same-major") && v.semver.is_none() {
                    v.semver = Some(Semver {
                        owner: ctx.names[id].clone(),
                        field: line(&f.wire),
                        camel: names::camel_words(&f.wire),
                    });
                }
            }
            if let Some(a) = ann(&f.annotations, "x-bands").and_then(Value::as_array) {
                if v.bands.is_none() {
                    let bands: Vec<(String, String)> = a
                        .iter()
                        .filter_map(|b| Some((n(b, "min")?, str_lit(&s(b, "label")?))))
                        .collect();
                    let (mut min, mut max) = (None, None);
                    if let Ty::Named(n) = &f.ty {
                        ctx.bounds(ir.types[*n].node, &mut min, &mut max, 0);
                    }
                    v.bands = Some(Bands {
                        owner: ctx.names[id].clone(),
                        field: line(&f.wire),
                        labels: bands.iter().map(|b| b.1.clone()).collect(),
                        bands,
                        min: min.map(num_lit),
                        max: max.map(num_lit),
                    });
                }
            }
            if let Some(a) = ann(&f.annotations, "x-freshness") {
                if v.freshness.is_none() {
                    let bands: Vec<(bool, String, String)> = a
                        .get("bands")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|b| {
                            let label = str_lit(&s(b, "label")?);
                            if let Some(d) = s(b, "below") {
                                Some((false, duration_seconds(&d)?.to_string(), label))
                            } else {
                                Some((true, duration_seconds(&s(b, "atMost")?)?.to_string(), label))
                            }
                        })
                        .collect();
                    let otherwise = str_lit(&s(a, "otherwise").unwrap_or_default());
                    let mut labels: Vec<String> = bands.iter().map(|b| b.2.clone()).collect();
                    labels.push(otherwise.clone());
                    v.freshness = Some(Freshness {
                        owner: ctx.names[id].clone(),
                        field: line(&f.wire),
                        bands,
                        otherwise,
                        labels,
                    });
                }
            }
        }
        if let Some(a) = ann(&t.annotations, "x-quality-score") {
            if v.quality.is_none() {
                let issues_field = s(a, "issues").unwrap_or_default();
                let issue =
                    st.fields
                        .iter()
                        .find(|f| f.wire == issues_field)
                        .and_then(|f| match &f.ty {
                            Ty::Array(t) => match &**t {
                                Ty::Named(n) => Some(*n),
                                _ => None,
                            },
                            _ => None,
                        });
                if let Some(issue) = issue {
                    used_types.insert(id, ());
                    used_types.insert(issue, ());
                    let deductions: Vec<(String, String, String)> = a
                        .get("deductions")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .map(|(k, d)| {
                            (
                                str_lit(k),
                                super::prop_key(k),
                                num_lit(d.as_f64().unwrap_or(0.0)),
                            )
                        })
                        .collect();
                    let counts = a
                        .get("counts")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .filter_map(|(k, f)| Some((str_lit(k), str_lit(f.as_str()?))))
                        .collect();
                    v.quality = Some(Quality {
                        report: ctx.names[id].clone(),
                        issue: ctx.names[issue].clone(),
                        issues_field: str_lit(&issues_field),
                        severity_field: str_lit(
                            &s(a, "severity").unwrap_or_else(|| "severity".into()),
                        ),
                        deductions,
                        floor: n(a, "floor").unwrap_or_else(|| "-Infinity".into()),
                        blocking: a
                            .get("blocking")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(|b| b.as_str().map(str_lit))
                            .collect(),
                        counts,
                        score_field: str_lit(&s(a, "score").unwrap_or_else(|| "score".into())),
                        passed_field: str_lit(&s(a, "passed").unwrap_or_else(|| "passed".into())),
                    });
                }
            }
        }
        if let Some(a) = ann(&t.annotations, "x-handoff") {
            if v.handoff.is_none() {
                used_types.insert(id, ());
                v.handoff = Some(Handoff {
                    type_name: ctx.names[id].clone(),
                    source: keys(&s(a, "sourceFamily").unwrap_or_default()),
                    target: keys(&s(a, "targetFamily").unwrap_or_default()),
                    session: keys(&s(a, "session").unwrap_or_default()),
                });
            }
        }
        if let Some(a) = ann(&t.annotations, "x-percent-full") {
            if v.percent.is_none() {
                used_types.insert(id, ());
                v.percent = Some(PercentFull {
                    type_name: ctx.names[id].clone(),
                    used: str_lit(&s(a, "used").unwrap_or_default()),
                    available: str_lit(&s(a, "available").unwrap_or_default()),
                });
            }
        }
        if let Some(a) = ann(&t.annotations, "x-task-match") {
            // The window's used/available properties come from its type's `x-percent-full`.
            let window = s(a, "window").unwrap_or_default();
            let first = window.split('/').nth(1).unwrap_or_default().to_string();
            let window_pf = st
                .fields
                .iter()
                .find(|f| f.wire == first)
                .and_then(|f| match &f.ty {
                    Ty::Named(n) => ann(&ir.types[*n].annotations, "x-percent-full"),
                    _ => None,
                });
            if let (Some(pf), None) = (window_pf, &v.task) {
                used_types.insert(id, ());
                v.task = Some(TaskMatch {
                    type_name: ctx.names[id].clone(),
                    can_start: keys(&s(a, "canStart").unwrap_or_default()),
                    can_start_points: n(a, "canStartPoints").unwrap_or_else(|| "0".into()),
                    projects: keys(&s(a, "projects").unwrap_or_default()),
                    project_key: str_lit(&s(a, "projectKey").unwrap_or_default()),
                    project_points: n(a, "projectPoints").unwrap_or_else(|| "0".into()),
                    window: keys(&window),
                    used: str_lit(&s(pf, "used").unwrap_or_default()),
                    available: str_lit(&s(pf, "available").unwrap_or_default()),
                    free_above: n(a, "freeAbovePercent").unwrap_or_else(|| "100".into()),
                    free_points: n(a, "freePoints").unwrap_or_else(|| "0".into()),
                    free_below: n(a, "freeBelowPercent").unwrap_or_else(|| "0".into()),
                    full_points: n(a, "fullPoints").unwrap_or_else(|| "0".into()),
                });
            }
        }
    }
    // `x-fallback` on any object type: a struct, or a tagged union of structs.
    for (id, t) in ir.types.iter().enumerate() {
        if let Some(a) = ann(&t.annotations, "x-fallback") {
            let name = &ctx.names[id];
            // `AttendeeNextAction` → `AttendeeAction`: the helper names of the specification.
            let base = name.replacen("Next", "", 1);
            let short = base.strip_suffix("Action").unwrap_or(&base).to_string();
            used_types.insert(id, ());
            used_fns.entry(id).or_default().push(format!("is{name}"));
            let keys: Vec<String> = ir
                .declared_properties(id)
                .iter()
                .map(|w| str_lit(w))
                .collect();
            let keys_const = format!("{}_KEYS", heck_shout(&short));
            let keys_inline = fits(
                0,
                &format!("const {keys_const} = new Set([{}]);", keys.join(", ")),
            );
            let valid_fn = format!("isValid{base}");
            let normalize_fn = format!("normalize{base}");
            let valid_break = !fits(
                0,
                &format!("export function {valid_fn}(action: unknown): action is {name} {{"),
            );
            let normalize_break = !fits(
                0,
                &format!("export function {normalize_fn}(action: unknown): {name} {{"),
            );
            v.fallbacks.push(Fallback {
                valid_break,
                normalize_break,
                type_name: name.clone(),
                is_fn: format!("is{name}"),
                valid_fn,
                fallback_fn: format!("{}FallbackAction", Ctx::lower_first(&short)),
                normalize_fn,
                value: ts_literal(a),
                entries: (!fits(2, &format!("return {};", ts_literal(a))))
                    .then(|| a.as_object())
                    .flatten()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| format!("{}: {}", super::prop_key(k), ts_literal(v)))
                            .collect()
                    }),
                return_inline: fits(
                    2,
                    &format!(
                        "return is{name}(action) && Object.keys(action).every((k) => {keys_const}.has(k));"
                    ),
                ),
                keys,
                keys_inline,
                keys_const,
            });
        }
    }
    if v.path.is_none()
        && v.quality.is_none()
        && v.semver.is_none()
        && v.bands.is_none()
        && v.handoff.is_none()
        && v.percent.is_none()
        && v.freshness.is_none()
        && v.task.is_none()
        && v.fallbacks.is_empty()
        && v.flows.is_empty()
    {
        return None;
    }
    if let Some(sv) = &v.semver {
        v.sv_fn = format!("is{}Compatible", sv.camel);
    }
    if let Some(b) = &v.bands {
        v.band_type = format!("{}Band", b.owner);
        v.band_fn = Ctx::lower_first(&v.band_type);
        v.bands_inline = fits(
            0,
            &format!("export type {} = {};", v.band_type, b.labels.join(" | ")),
        );
    }
    v.exports = exported_names(&v);
    if v.path.is_some() {
        v.imports.push(Import::new(
            false,
            vec!["codePoints".into()],
            "./runtime.js",
        ));
    }
    if !v.flows.derive.is_empty() || !v.flows.post_process.is_empty() {
        v.imports
            .push(Import::new(true, vec!["Violation".into()], "./runtime.js"));
    }
    let mut by_module: BTreeMap<usize, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for id in used_types.keys() {
        by_module
            .entry(ir.types[*id].module)
            .or_default()
            .1
            .push(ctx.names[*id].clone());
    }
    for (id, fns) in used_fns {
        by_module
            .entry(ir.types[id].module)
            .or_default()
            .0
            .extend(fns);
    }
    for (m, (fns, types)) in by_module {
        let from = format!("./{}.js", ctx.files[m]);
        if !fns.is_empty() {
            v.imports.push(Import::new(false, fns, &from));
        }
        if !types.is_empty() {
            v.imports.push(Import::new(true, types, &from));
        }
    }
    Some(v)
}

/// `Attendee` → `ATTENDEE`, `EventAction` → `EVENT_ACTION`.
fn heck_shout(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_uppercase());
    }
    out
}

/// The names `helpers.ts` exports, to settle clashes with the type modules in `index.ts`.
fn exported_names(v: &HelpersView) -> Vec<String> {
    let mut out: Vec<String> = vec!["HelperError".into()];
    let mut add = |names: &[&str]| out.extend(names.iter().map(|s| s.to_string()));
    if v.path.is_some() {
        add(&[
            "parseContextPath",
            "getRootContext",
            "getParentContext",
            "isNestedContext",
            "getContextDepth",
            "isAncestor",
        ]);
    }
    if v.collections.is_some() {
        add(&[
            "getContextTree",
            "getDirectChildren",
            "mainContextOnly",
            "getRootContexts",
        ]);
    }
    if v.quality.is_some() {
        add(&[
            "SeverityCounts",
            "computeQualityScore",
            "countIssuesBySeverity",
            "passesQualityGate",
            "checkQualityReport",
        ]);
    }
    if v.handoff.is_some() {
        add(&["isCrossSkillHandoff", "isSessionMismatch"]);
    }
    if v.percent.is_some() {
        add(&["percentFull"]);
    }
    if v.freshness.is_some() {
        add(&["contextFreshness"]);
    }
    if v.task.is_some() {
        add(&["taskMatchScore"]);
    }
    if v.semver.is_some() {
        out.push(v.sv_fn.clone());
    }
    if v.bands.is_some() {
        out.push(v.band_type.clone());
        out.push(v.band_fn.clone());
    }
    out.extend(v.flows.exports.iter().cloned());
    for f in &v.fallbacks {
        out.extend([
            f.valid_fn.clone(),
            f.fallback_fn.clone(),
            f.normalize_fn.clone(),
        ]);
    }
    out
}
