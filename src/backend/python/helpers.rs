//! Helper functions (`helpers.py`, issue 6), emitted only for the annotations the schemas
//! carry. Every parameter (separators, limits, deductions, bands, pointers, points) comes from
//! the annotation; the template lays the functions out.

use crate::backend::escape::python::{doc_fragment, Docstring};
use crate::ir::names::{self, Lang};
use askama::Template;
use serde_json::Value;

use super::{flat_checks, lit, run, translate_pattern, GENERATED};
use crate::error::Result;
use crate::ir::{Check, Ir, Ty, TypeId, TypeKind};

/// `x-path-hierarchy`.
pub struct PathCtx {
    /// The stem of the function names (`context` for `ContextPath`).
    pub stem: String,
    pub separator: String,
    pub max_depth: u64,
    pub max_length: u64,
    pub segment: String,
    /// Collection helpers: (element type, wire name of the path field) of the first struct
    /// with a field of the path type.
    pub collection: Option<(String, String)>,
}

/// `x-quality-score`.
pub struct QualityCtx {
    pub report: String,
    /// The annotation of one issue.
    pub issue: String,
    pub stem: String,
    pub issues: String,
    pub severity: String,
    /// The wire names of the issues and severity properties, as literals.
    pub issues_key: String,
    pub severity_key: String,
    /// (severity literal, deduction literal)
    pub deductions: Vec<(String, String)>,
    pub floor: String,
    pub blocking: String,
    /// (severity literal, count property literal)
    pub counts: Vec<(String, String)>,
    pub score: String,
    pub passed: String,
}

pub struct SemverCtx {
    pub name: String,
}

pub struct BandsCtx {
    pub name: String,
    /// (min literal, label literal), highest first.
    pub bands: Vec<(String, String)>,
    pub low: String,
    pub high: String,
}

pub struct HandoffCtx {
    pub ty: String,
    pub source: String,
    pub target: String,
    pub session: String,
}

pub struct PercentCtx {
    pub ty: String,
    pub param: String,
    pub used: String,
    pub available: String,
}

pub struct FreshnessCtx {
    /// (strict `<`, bound in seconds as a literal, label literal, label literal in the docstring)
    pub bands: Vec<(bool, String, String, Docstring)>,
    pub otherwise: String,
    pub otherwise_doc: Docstring,
}

pub struct TaskCtx {
    pub ty: String,
    pub can_start: String,
    pub can_start_points: String,
    pub projects: String,
    pub project_key: String,
    pub project_points: String,
    pub window: String,
    pub used: String,
    pub available: String,
    pub free_above: String,
    pub free_points: String,
    pub free_below: String,
    pub full_points: String,
}

pub struct FallbackCtx {
    pub stem: String,
    /// The set of the type's property names: a valid action has exactly these keys.
    pub keys: String,
    pub node: usize,
    pub value: String,
}

#[derive(Template)]
#[template(path = "python/helpers.py.j2", escape = "none")]
struct HelpersTpl {
    header: &'static str,
    imports: Vec<String>,
    path: Option<PathCtx>,
    quality: Option<QualityCtx>,
    semver: Option<SemverCtx>,
    bands: Option<BandsCtx>,
    handoff: Option<HandoffCtx>,
    percent: Option<PercentCtx>,
    freshness: Option<FreshnessCtx>,
    task: Option<TaskCtx>,
    fallbacks: Vec<FallbackCtx>,
    flows: super::flows::FlowsCtx,
}

fn ann<'a>(list: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn num(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_number).map(lit::number)
}

/// An ISO 8601 duration of weeks, days, hours, minutes and seconds, in seconds.
fn duration_seconds(d: &str) -> Option<f64> {
    let rest = d.strip_prefix('P')?;
    let (date, time) = match rest.split_once('T') {
        Some((a, b)) => (a, b),
        None => (rest, ""),
    };
    let mut total = 0.0;
    let mut parse = |part: &str, units: &[(char, f64)]| -> Option<()> {
        let mut n = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' {
                n.push(c);
            } else {
                let factor = units.iter().find(|(u, _)| *u == c)?.1;
                total += n.parse::<f64>().ok()? * factor;
                n.clear();
            }
        }
        n.is_empty().then_some(())
    };
    parse(date, &[('W', 604800.0), ('D', 86400.0)])?;
    parse(time, &[('H', 3600.0), ('M', 60.0), ('S', 1.0)])?;
    Some(total)
}

/// Follows a JSON Pointer (relative to a struct) through field types to the struct it ends at.
fn struct_at(ir: &Ir, mut id: TypeId, pointer: &str) -> Option<TypeId> {
    for token in pointer.split('/').skip(1) {
        let TypeKind::Struct(st) = &ir.types[id].kind else {
            return None;
        };
        let f = st.fields.iter().find(|f| f.wire == token)?;
        id = named(&f.ty)?;
    }
    Some(id)
}

fn named(t: &Ty) -> Option<TypeId> {
    match t {
        Ty::Named(n) => Some(*n),
        Ty::Nullable(t) => named(t),
        _ => None,
    }
}

/// A Python identifier made from schema text (ASCII, never a keyword, never starting with a
/// digit).
fn snake(raw: &str) -> String {
    names::field_name(Lang::Python, raw)
}

/// The text of `helpers.py` and the names it exports, or `None` without annotations.
pub fn render(
    ir: &Ir,
    names: &[String],
    modules: &[String],
) -> Result<Option<(String, Vec<String>)>> {
    let mut used_types: Vec<TypeId> = Vec::new();
    let mut exported: Vec<String> = Vec::new();
    let mut path = None;
    let mut quality = None;
    let mut semver = None;
    let mut bands = None;
    let mut handoff = None;
    let mut percent = None;
    let mut freshness = None;
    let mut task = None;
    let mut fallbacks = Vec::new();
    for (id, t) in ir.types.iter().enumerate() {
        if let (Some(a), None) = (ann(&t.annotations, "x-path-hierarchy"), &path) {
            let stem = snake(&t.raw_name);
            let stem = stem.strip_suffix("_path").unwrap_or(&stem).to_string();
            let collection = ir
                .types
                .iter()
                .enumerate()
                .find_map(|(sid, st)| match &st.kind {
                    TypeKind::Struct(s) => s
                        .fields
                        .iter()
                        .find(|f| named(&f.ty) == Some(id))
                        .map(|f| (sid, f.wire.clone())),
                    _ => None,
                });
            let collection = collection.map(|(sid, wire)| {
                used_types.push(sid);
                (names[sid].clone(), lit::string(&wire))
            });
            let seg = s(a, "segmentPattern").unwrap_or_else(|| "^[A-Za-z0-9_-]+$".into());
            exported.extend([
                format!("parse_{stem}_path"),
                format!("get_root_{stem}"),
                format!("get_parent_{stem}"),
                format!("is_nested_{stem}"),
                format!("get_{stem}_depth"),
                "is_ancestor".to_string(),
            ]);
            if collection.is_some() {
                exported.extend([
                    format!("get_{stem}_tree"),
                    "get_direct_children".to_string(),
                    format!("main_{stem}_only"),
                    format!("get_root_{stem}s"),
                ]);
            }
            path = Some(PathCtx {
                stem,
                separator: lit::string(&s(a, "separator").unwrap_or_else(|| "/".into())),
                max_depth: a
                    .get("maxDepth")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX),
                max_length: a
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX),
                segment: lit::regex(&translate_pattern(&seg)),
                collection,
            });
        }
        if let (Some(a), None) = (ann(&t.annotations, "x-quality-score"), &quality) {
            let stem = snake(&t.raw_name);
            let issues = s(a, "issues").unwrap_or_else(|| "issues".into());
            let severity = s(a, "severity").unwrap_or_else(|| "severity".into());
            let issue = match &t.kind {
                TypeKind::Struct(st) => {
                    st.fields
                        .iter()
                        .find(|f| f.wire == issues)
                        .and_then(|f| match &f.ty {
                            Ty::Array(inner) => named(inner),
                            _ => None,
                        })
                }
                _ => None,
            };
            if let Some(i) = issue {
                used_types.push(i);
            }
            used_types.push(id);
            let pairs = |key: &str, f: &dyn Fn(&Value) -> String| -> Vec<(String, String)> {
                a.get(key)
                    .and_then(Value::as_object)
                    .map(|o| o.iter().map(|(k, v)| (lit::string(k), f(v))).collect())
                    .unwrap_or_default()
            };
            let deductions = pairs("deductions", &|v| {
                v.as_number().map(lit::number).unwrap_or("0".into())
            });
            let counts = pairs("counts", &|v| lit::string(v.as_str().unwrap_or_default()));
            let blocking: Vec<String> = a
                .get("blocking")
                .and_then(Value::as_array)
                .map(|b| {
                    b.iter()
                        .filter_map(Value::as_str)
                        .map(lit::string)
                        .collect()
                })
                .unwrap_or_default();
            exported.extend([
                "compute_quality_score".to_string(),
                format!("count_{}_by_{}", snake(&issues), snake(&severity)),
                "passes_quality_gate".to_string(),
                format!("check_{stem}"),
            ]);
            quality = Some(QualityCtx {
                report: names[id].clone(),
                issue: match issue {
                    Some(i) => format!("{} | Mapping[str, Any]", names[i]),
                    None => "Mapping[str, Any]".into(),
                },
                stem,
                issues: snake(&issues),
                severity: snake(&severity),
                issues_key: lit::string(&issues),
                severity_key: lit::string(&severity),
                deductions,
                floor: num(a, "floor").unwrap_or("0.0".into()),
                blocking: lit::seq(&blocking, "{", "}", 0, 30, 0),
                counts,
                score: lit::string(&s(a, "score").unwrap_or_else(|| "score".into())),
                passed: lit::string(&s(a, "passed").unwrap_or_else(|| "passed".into())),
            });
        }
        if let Some(a) = ann(&t.annotations, "x-handoff") {
            used_types.push(id);
            exported.extend([
                "is_cross_skill_handoff".to_string(),
                "is_session_mismatch".to_string(),
            ]);
            handoff = Some(HandoffCtx {
                ty: names[id].clone(),
                source: lit::string(&s(a, "sourceFamily").unwrap_or_default()),
                target: lit::string(&s(a, "targetFamily").unwrap_or_default()),
                session: lit::string(&s(a, "session").unwrap_or_default()),
            });
        }
        if let Some(a) = ann(&t.annotations, "x-percent-full") {
            used_types.push(id);
            exported.push("percent_full".into());
            percent = Some(PercentCtx {
                ty: names[id].clone(),
                param: snake(&t.raw_name),
                used: lit::string(&s(a, "used").unwrap_or_default()),
                available: lit::string(&s(a, "available").unwrap_or_default()),
            });
        }
        if let Some(a) = ann(&t.annotations, "x-task-match") {
            used_types.push(id);
            exported.push("task_match_score".into());
            let window = s(a, "window").unwrap_or_default();
            let pf = struct_at(ir, id, &window)
                .and_then(|w| ann(&ir.types[w].annotations, "x-percent-full"));
            let p = |k: &str| num(a, k).unwrap_or("0".into());
            task = Some(TaskCtx {
                ty: names[id].clone(),
                can_start: lit::string(&s(a, "canStart").unwrap_or_default()),
                can_start_points: p("canStartPoints"),
                projects: lit::string(&s(a, "projects").unwrap_or_default()),
                project_key: lit::string(&s(a, "projectKey").unwrap_or_default()),
                project_points: p("projectPoints"),
                window: lit::string(&window),
                used: lit::string(&pf.and_then(|v| s(v, "used")).unwrap_or_default()),
                available: lit::string(&pf.and_then(|v| s(v, "available")).unwrap_or_default()),
                free_above: lit::string(&p("freeAbovePercent")),
                free_points: p("freePoints"),
                free_below: lit::string(&p("freeBelowPercent")),
                full_points: p("fullPoints"),
            });
        }
        if let Some(v) = ann(&t.annotations, "x-fallback") {
            let stem = snake(&t.raw_name);
            let stem = stem
                .strip_suffix("_next_action")
                .unwrap_or(&stem)
                .to_string();
            exported.extend([
                format!("is_valid_{stem}_action"),
                format!("normalize_{stem}_action"),
                format!("{stem}_fallback_action"),
            ]);
            let wires: Vec<String> = ir
                .declared_properties(id)
                .iter()
                .map(|w| lit::string(w))
                .collect();
            let keys = lit::seq(&wires, "{", "}", 4, 20, 0);
            fallbacks.push(FallbackCtx {
                stem,
                keys,
                node: t.node,
                value: lit::value(v, 4, 7, 0),
            });
        }
        if let TypeKind::Struct(st) = &t.kind {
            for f in &st.fields {
                if ann(&f.annotations, "x-semver-compatibility").and_then(Value::as_str)
                    == Some("same-major")
                {
                    exported.push(format!("is_{}_compatible", snake(&f.wire)));
                    semver = Some(SemverCtx {
                        name: snake(&f.wire),
                    });
                }
                if let Some(b) = ann(&f.annotations, "x-bands").and_then(Value::as_array) {
                    let list: Vec<(String, String)> = b
                        .iter()
                        .map(|x| {
                            (
                                num(x, "min").unwrap_or("0".into()),
                                lit::string(&s(x, "label").unwrap_or_default()),
                            )
                        })
                        .collect();
                    let prop = flat_checks(ir, t.node, 0)
                        .into_iter()
                        .find_map(|c| match c {
                            Check::Properties(ps) => {
                                ps.into_iter().find(|(k, _)| *k == f.wire).map(|p| p.1)
                            }
                            _ => None,
                        });
                    let checks = prop.map(|n| flat_checks(ir, n, 0)).unwrap_or_default();
                    let low = checks.iter().find_map(|c| {
                        if let Check::Minimum(m) = c {
                            Some(lit::float(*m))
                        } else {
                            None
                        }
                    });
                    let high = checks.iter().find_map(|c| {
                        if let Check::Maximum(m) = c {
                            Some(lit::float(*m))
                        } else {
                            None
                        }
                    });
                    let name = format!("{}_band", snake(&t.raw_name));
                    exported.push(name.clone());
                    bands = Some(BandsCtx {
                        name,
                        low: low.unwrap_or_else(|| {
                            list.last().map(|l| l.0.clone()).unwrap_or("0".into())
                        }),
                        high: high.unwrap_or_else(|| "float(\"inf\")".into()),
                        bands: list,
                    });
                }
                if let Some(fr) = ann(&f.annotations, "x-freshness") {
                    let list = fr
                        .get("bands")
                        .and_then(Value::as_array)
                        .map(|b| {
                            b.iter()
                                .filter_map(|x| {
                                    let label = lit::string(&s(x, "label")?);
                                    let doc = doc_fragment(&label);
                                    if let Some(d) = s(x, "below") {
                                        Some((true, lit::bound(duration_seconds(&d)?), label, doc))
                                    } else {
                                        Some((
                                            false,
                                            lit::bound(duration_seconds(&s(x, "atMost")?)?),
                                            label,
                                            doc,
                                        ))
                                    }
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    exported.push("context_freshness".into());
                    let otherwise = lit::string(&s(fr, "otherwise").unwrap_or_default());
                    freshness = Some(FreshnessCtx {
                        bands: list,
                        otherwise_doc: doc_fragment(&otherwise),
                        otherwise,
                    });
                }
            }
        }
    }
    let flows = super::flows::context(names, &crate::backend::flows::read(ir)?);
    exported.extend(flows.exports.iter().cloned());
    if exported.is_empty() {
        return Ok(None);
    }
    let mut by_module: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    used_types.sort();
    used_types.dedup();
    for id in used_types {
        by_module
            .entry(modules[ir.types[id].module].clone())
            .or_default()
            .push(names[id].clone());
    }
    for (id, name) in &flows.imports {
        by_module
            .entry(modules[ir.types[*id].module].clone())
            .or_default()
            .push(name.clone());
    }
    let imports = by_module
        .into_iter()
        .map(|(m, mut ns)| {
            ns.sort();
            ns.dedup();
            super::sort_imports(&mut ns);
            let one = format!("from .{m} import {}", ns.join(", "));
            if one.chars().count() <= super::lit::WIDTH {
                one
            } else {
                let items: String = ns.iter().map(|n| format!("    {n},\n")).collect();
                format!("from .{m} import (\n{items})")
            }
        })
        .collect();
    let tpl = HelpersTpl {
        header: GENERATED,
        imports,
        path,
        quality,
        semver,
        bands,
        handoff,
        percent,
        freshness,
        task,
        fallbacks,
        flows,
    };
    let text = super::eol(run("python/helpers.py.j2", &tpl)?);
    exported.sort();
    Ok(Some((text, exported)))
}
