//! The helper functions the schemas' annotations ask for, as template contexts. Each annotation's
//! parameters become literals here; `templates/rust/helpers/` lays the code out.

use askama::Template;
use heck::ToSnakeCase;
use serde_json::Value;

use super::{literal, raw_literal, GENERATED};
use crate::backend::escape::rust::{line, Line};
use crate::backend::run;
use crate::error::Result;
use crate::ir::names::{self, Lang};
use crate::ir::{Ir, Ty, TypeId, TypeKind};

pub(crate) struct PathCtx {
    type_name: String,
    separator: Line,
    separator_literal: String,
    max_depth: u64,
    max_length: u64,
    segment_pattern: Line,
    segment_literal: String,
    collections: Vec<CollectionCtx>,
}

pub(crate) struct CollectionCtx {
    type_name: String,
    field: String,
}

pub(crate) struct SeverityCtx {
    field: String,
    literal: String,
    deduction: String,
    count_field: String,
    count_wire: Line,
    count_literal: String,
}

pub(crate) struct QualityCtx {
    report_type: String,
    issue_type: String,
    issues_field: String,
    severity_field: String,
    severities: Vec<SeverityCtx>,
    floor: String,
    blocking: Vec<String>,
    blocking_text: String,
    score_field: String,
    score_wire: Line,
    score_literal: String,
    passed_field: String,
    passed_wire: Line,
    passed_literal: String,
}

pub(crate) struct BandCtx {
    min: String,
    label: Line,
    literal: String,
    variant: String,
}

pub(crate) struct BandsCtx {
    field_wire: Line,
    enum_name: String,
    func: String,
    bands: Vec<BandCtx>,
}

pub(crate) struct HandoffCtx {
    type_name: String,
    source: String,
    target: String,
    session: String,
}

pub(crate) struct PercentCtx {
    type_name: String,
    used: String,
    available: String,
}

pub(crate) struct FreshBand {
    label: Line,
    variant: String,
    inclusive: bool,
    nanos: String,
    text: Line,
}

pub(crate) struct FreshCtx {
    enum_name: String,
    bands: Vec<FreshBand>,
    otherwise_label: Line,
    otherwise_variant: String,
}

pub(crate) struct TaskCtx {
    type_name: String,
    can_start: String,
    can_start_points: i64,
    projects: String,
    project_key: String,
    project_points: i64,
    window: String,
    used: String,
    available: String,
    free_above: i64,
    free_points: i64,
    free_below: i64,
    full_points: i64,
}

pub(crate) struct FallbackCtx {
    type_name: String,
    node: usize,
    is_valid: String,
    fallback: String,
    normalize: String,
    constant: String,
    literal: String,
    /// The constant's literal goes on its own line, as rustfmt puts it.
    wrap: bool,
}

#[derive(Template)]
#[template(path = "rust/helpers/mod.rs.j2", escape = "none")]
pub(crate) struct HelpersTemplate<'a> {
    header: &'a str,
    path: Option<PathCtx>,
    quality: Option<QualityCtx>,
    semver: bool,
    bands: Vec<BandsCtx>,
    handoff: Option<HandoffCtx>,
    percent_full: Option<PercentCtx>,
    freshness: Option<FreshCtx>,
    task_match: Option<TaskCtx>,
    fallbacks: Vec<FallbackCtx>,
    flows: super::flows::FlowsCtx,
}

struct Ctx<'a> {
    ir: &'a Ir,
    names: &'a [String],
}

fn unwrap_named(ty: &Ty) -> Option<TypeId> {
    match ty {
        Ty::Named(id) => Some(*id),
        Ty::Nullable(t) => unwrap_named(t),
        _ => None,
    }
}

impl Ctx<'_> {
    fn fields(&self, id: TypeId) -> Vec<(String, &crate::ir::Field)> {
        match &self.ir.types[id].kind {
            TypeKind::Struct(s) => {
                let wires: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
                names::field_names(Lang::Rust, &wires)
                    .into_iter()
                    .zip(&s.fields)
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The Rust field chain (`a.b`) for a JSON Pointer of required fields, and the last field's type.
    fn access(&self, id: TypeId, pointer: &str) -> Option<(String, Ty)> {
        let mut cur = id;
        let mut chain = Vec::new();
        let mut ty = None;
        for token in pointer.trim_start_matches('/').split('/') {
            let fields = self.fields(cur);
            let (name, f) = fields.into_iter().find(|(_, f)| f.wire == token)?;
            if !f.required {
                return None;
            }
            chain.push(name);
            ty = Some(f.ty.clone());
            if let Some(next) = unwrap_named(&f.ty) {
                cur = next;
            }
        }
        Some((chain.join("."), ty?))
    }

    /// The Rust name of the required property `wire` (a name, not a pointer).
    fn field(&self, id: TypeId, wire: &str) -> Option<String> {
        self.fields(id)
            .into_iter()
            .find(|(_, f)| f.wire == wire && f.required)
            .map(|(name, _)| name)
    }
}

fn ann<'a>(anns: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    anns.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// ISO 8601 durations of hours, minutes and seconds (`PT30M`, `PT2H`) in nanoseconds.
fn duration_nanos(s: &str) -> Option<i128> {
    let rest = s.strip_prefix("PT")?;
    let mut total: i128 = 0;
    let mut num = String::new();
    for c in rest.chars() {
        match c {
            '0'..='9' => num.push(c),
            'H' | 'M' | 'S' => {
                let n: i128 = num.parse().ok()?;
                num.clear();
                total += n * match c {
                    'H' => 3_600,
                    'M' => 60,
                    _ => 1,
                };
            }
            _ => return None,
        }
    }
    num.is_empty().then_some(total * 1_000_000_000)
}

pub(crate) fn render(ir: &Ir, names: &[String]) -> Result<Option<String>> {
    let ctx = Ctx { ir, names };
    let mut t = HelpersTemplate {
        header: GENERATED,
        path: None,
        quality: None,
        semver: false,
        bands: Vec::new(),
        handoff: None,
        percent_full: None,
        freshness: None,
        task_match: None,
        fallbacks: Vec::new(),
        flows: super::flows::context(ir, names, &crate::backend::flows::read(ir)?),
    };
    for (id, def) in ir.types.iter().enumerate() {
        if let (Some(h), None) = (ann(&def.annotations, "x-path-hierarchy"), &t.path) {
            let separator = h
                .get("separator")
                .and_then(Value::as_str)
                .unwrap_or("/")
                .to_string();
            let segment_pattern = h
                .get("segmentPattern")
                .and_then(Value::as_str)
                .unwrap_or("^[A-Za-z0-9_-]+$")
                .to_string();
            let mut collections = Vec::new();
            for (oid, other) in ir.types.iter().enumerate() {
                if let TypeKind::Struct(_) = other.kind {
                    if let Some((name, _)) = ctx
                        .fields(oid)
                        .into_iter()
                        .find(|(_, f)| unwrap_named(&f.ty) == Some(id) && !f.required)
                    {
                        collections.push(CollectionCtx {
                            type_name: names[oid].clone(),
                            field: name,
                        });
                    }
                }
            }
            collections.truncate(1);
            t.path = Some(PathCtx {
                type_name: names[id].clone(),
                separator_literal: literal(&separator),
                separator: line(&separator),
                max_depth: h
                    .get("maxDepth")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX),
                max_length: h
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX),
                segment_literal: raw_literal(&segment_pattern),
                segment_pattern: line(&segment_pattern),
                collections,
            });
        }
        if let Some(q) = ann(&def.annotations, "x-quality-score") {
            t.quality = quality(&ctx, id, q);
        }
        if let Some(fb) = ann(&def.annotations, "x-fallback") {
            let stem = names[id]
                .trim_end_matches("NextAction")
                .trim_end_matches("Action")
                .to_snake_case();
            let constant = format!("{}_FALLBACK", stem.to_uppercase());
            let lit = raw_literal(&fb.to_string());
            let wrap = constant.len() + lit.len() + 16 > 100 && lit.len() + 5 <= 100;
            t.fallbacks.push(FallbackCtx {
                wrap,
                constant,
                type_name: names[id].clone(),
                node: def.node,
                is_valid: format!("is_valid_{stem}_action"),
                fallback: format!("{stem}_fallback_action"),
                normalize: format!("normalize_{stem}_action"),
                literal: lit,
            });
        }
        if let Some(h) = ann(&def.annotations, "x-handoff") {
            let get = |k: &str| {
                h.get(k)
                    .and_then(Value::as_str)
                    .and_then(|p| ctx.access(id, p))
                    .map(|a| a.0)
            };
            if let (Some(source), Some(target), Some(session)) =
                (get("sourceFamily"), get("targetFamily"), get("session"))
            {
                t.handoff = Some(HandoffCtx {
                    type_name: names[id].clone(),
                    source,
                    target,
                    session,
                });
            }
        }
        if let Some(p) = ann(&def.annotations, "x-percent-full") {
            let get = |k: &str| {
                p.get(k)
                    .and_then(Value::as_str)
                    .and_then(|w| ctx.field(id, w))
            };
            if let (Some(used), Some(available)) = (get("used"), get("available")) {
                t.percent_full = Some(PercentCtx {
                    type_name: names[id].clone(),
                    used,
                    available,
                });
            }
        }
        if let Some(m) = ann(&def.annotations, "x-task-match") {
            t.task_match = task_match(&ctx, id, m);
        }
        for (fname, f) in ctx.fields(id) {
            let _ = fname;
            if ann(&f.annotations, "x-semver-compatibility").and_then(Value::as_str)
                == Some("same-major")
            {
                t.semver = true;
            }
            if let Some(Value::Array(bands)) = ann(&f.annotations, "x-bands") {
                let owner = names[id].clone();
                let raws: Vec<String> = bands
                    .iter()
                    .filter_map(|b| b.get("label")?.as_str().map(String::from))
                    .collect();
                let variants = names::variant_names(&raws);
                t.bands.push(BandsCtx {
                    field_wire: line(&f.wire),
                    enum_name: format!("{owner}Band"),
                    func: format!("{}_band", owner.to_snake_case()),
                    bands: bands
                        .iter()
                        .zip(variants)
                        .map(|(b, variant)| {
                            let label = b
                                .get("label")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string();
                            BandCtx {
                                min: format!(
                                    "{:?}",
                                    b.get("min").and_then(Value::as_f64).unwrap_or(0.0)
                                ),
                                literal: literal(&label),
                                label: line(&label),
                                variant,
                            }
                        })
                        .collect(),
                });
            }
            if let (Some(fr), None) = (ann(&f.annotations, "x-freshness"), &t.freshness) {
                t.freshness = freshness(&ctx, fr);
            }
        }
    }
    let any = t.path.is_some()
        || t.quality.is_some()
        || t.semver
        || !t.bands.is_empty()
        || t.handoff.is_some()
        || t.percent_full.is_some()
        || t.freshness.is_some()
        || t.task_match.is_some()
        || !t.fallbacks.is_empty()
        || !t.flows.is_empty();
    if !any {
        return Ok(None);
    }
    run("rust/helpers/mod.rs.j2", &t).map(Some)
}

fn quality(ctx: &Ctx<'_>, id: TypeId, q: &Value) -> Option<QualityCtx> {
    let s = |k: &str| q.get(k).and_then(Value::as_str);
    let (issues_field, issues_ty) = ctx
        .fields(id)
        .into_iter()
        .find(|(_, f)| f.wire == s("issues").unwrap_or_default() && f.required)
        .map(|(name, f)| (name, f.ty.clone()))?;
    let issue_id = match issues_ty {
        Ty::Array(item) => unwrap_named(&item)?,
        _ => return None,
    };
    let severity_field = ctx.field(issue_id, s("severity")?)?;
    let counts = q.get("counts")?.as_object()?;
    let severities = q
        .get("deductions")?
        .as_object()?
        .iter()
        .map(|(label, d)| {
            let count_wire = counts.get(label)?.as_str()?.to_string();
            Some(SeverityCtx {
                field: names::field_name(Lang::Rust, label),
                literal: literal(label),
                deduction: format!("{:?}", d.as_f64()?),
                count_field: ctx.field(id, &count_wire)?,
                count_literal: literal(&count_wire),
                count_wire: line(&count_wire),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let blocking: Vec<String> = q
        .get("blocking")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(|b| names::field_name(Lang::Rust, b))
        .collect();
    let score_wire = s("score")?.to_string();
    let passed_wire = s("passed")?.to_string();
    Some(QualityCtx {
        report_type: ctx.names[id].clone(),
        issue_type: ctx.names[issue_id].clone(),
        issues_field,
        severity_field,
        severities,
        floor: format!(
            "{:?}",
            q.get("floor").and_then(Value::as_f64).unwrap_or(0.0)
        ),
        blocking_text: blocking.join(" or "),
        blocking,
        score_field: ctx.field(id, &score_wire)?,
        score_literal: literal(&score_wire),
        score_wire: line(&score_wire),
        passed_field: ctx.field(id, &passed_wire)?,
        passed_literal: literal(&passed_wire),
        passed_wire: line(&passed_wire),
    })
}

fn freshness(ctx: &Ctx<'_>, fr: &Value) -> Option<FreshCtx> {
    let otherwise_label = fr.get("otherwise")?.as_str()?.to_string();
    let mut labels: Vec<String> = Vec::new();
    let mut bands = Vec::new();
    for b in fr.get("bands")?.as_array()? {
        let label = b.get("label")?.as_str()?.to_string();
        let (text, inclusive) = match (b.get("below"), b.get("atMost")) {
            (Some(v), _) => (v.as_str()?.to_string(), false),
            (None, Some(v)) => (v.as_str()?.to_string(), true),
            _ => return None,
        };
        let nanos = duration_nanos(&text)?.to_string();
        labels.push(label.clone());
        bands.push(FreshBand {
            label: line(&label),
            variant: String::new(),
            inclusive,
            nanos,
            text: line(&text),
        });
    }
    labels.push(otherwise_label.clone());
    // Reuse an enum of the schema with exactly these values, if there is one.
    let existing = ctx
        .ir
        .types
        .iter()
        .position(|t| matches!(&t.kind, TypeKind::Enum(v) if *v == labels))?;
    let TypeKind::Enum(values) = &ctx.ir.types[existing].kind else {
        return None;
    };
    let variants = names::variant_names(values);
    for (b, v) in bands.iter_mut().zip(&variants) {
        b.variant = v.clone();
    }
    Some(FreshCtx {
        enum_name: ctx.names[existing].clone(),
        bands,
        otherwise_label: line(&otherwise_label),
        otherwise_variant: variants.last()?.clone(),
    })
}

fn task_match(ctx: &Ctx<'_>, id: TypeId, m: &Value) -> Option<TaskCtx> {
    let s = |k: &str| m.get(k).and_then(Value::as_str);
    let n = |k: &str| m.get(k).and_then(Value::as_i64);
    let (can_start, _) = ctx.access(id, s("canStart")?)?;
    let (projects, projects_ty) = ctx.access(id, s("projects")?)?;
    let project_id = match projects_ty {
        Ty::Array(item) => unwrap_named(&item)?,
        _ => return None,
    };
    let project_key = ctx.field(project_id, s("projectKey")?)?;
    let (window, window_ty) = ctx.access(id, s("window")?)?;
    let window_id = unwrap_named(&window_ty)?;
    let pf = ann(&ctx.ir.types[window_id].annotations, "x-percent-full")?;
    let used = ctx.field(window_id, pf.get("used")?.as_str()?)?;
    let available = ctx.field(window_id, pf.get("available")?.as_str()?)?;
    Some(TaskCtx {
        type_name: ctx.names[id].clone(),
        can_start,
        can_start_points: n("canStartPoints")?,
        projects,
        project_key,
        project_points: n("projectPoints")?,
        window,
        used,
        available,
        free_above: n("freeAbovePercent")?,
        free_points: n("freePoints")?,
        free_below: n("freeBelowPercent")?,
        full_points: n("fullPoints")?,
    })
}
