//! The seed flows that annotations ask for (`x-defaults`, `x-derive`, `x-quality-flow`,
//! `x-agent-match`, `x-tool-response`, `x-post-process`; see `schemas/README.md`), read once into
//! a language-neutral model. Every language's helpers render the same model, so the three
//! implementations take their parameters (property names, pointers, thresholds) from one place.
//! `check` rejects an annotation of the wrong shape with the schema location, before anything is
//! written.

use serde_json::Value;

use crate::error::{Error, Result};
use crate::ir::{Ir, Ty, TypeId, TypeKind};

/// `x-defaults` on an object type: defaults for absent properties.
pub struct Defaults {
    pub ty: TypeId,
    pub rules: Vec<DefaultRule>,
}

pub struct DefaultRule {
    pub property: String,
    /// A constant default, or `None` for a budget summed from the units.
    pub value: Option<Value>,
    pub budget: Option<BudgetOf>,
    pub warn: bool,
}

/// A budget object built from an array of units: `{total: Σ budget, perUnit: {key: budget}}`.
pub struct BudgetOf {
    pub units: String,
    pub key: String,
    pub budget: String,
    pub total: String,
    pub per_unit: String,
}

/// `x-derive` on a child context type.
pub struct Derive {
    pub child: TypeId,
    pub parent: TypeId,
    pub units: String,
    pub key: String,
    pub number: String,
    pub number_prefix: Option<String>,
    /// (child property, parent pointer, declared properties when the child property is an object).
    pub inherit: Vec<(String, String, Vec<String>)>,
    pub from_unit: Vec<(String, String)>,
    /// (child property, parent pointer, item key when the parent list holds objects).
    pub subsets: Vec<(String, String, Option<String>)>,
    pub terminology: Option<Terminology>,
    pub neighbours: Option<Neighbours>,
    /// (child property, parent pointer to a map by unit key, unit property).
    pub budget: Option<(String, Option<String>, Option<String>)>,
    pub remaining: Option<Remaining>,
}

pub struct Terminology {
    pub property: String,
    pub glossary: String,
    pub term: String,
    pub first_use: String,
}

pub struct Neighbours {
    pub preceding: String,
    pub following: String,
    /// (parent pointer to the summaries, their unit key property, their text property).
    pub summaries: Option<(String, String, String)>,
}

pub struct Remaining {
    pub property: String,
    pub parts: String,
    pub budget: String,
    pub status: String,
    pub spent: Vec<String>,
}

/// `x-quality-flow` on a report type that also has `x-quality-score`.
pub struct QualityFlow {
    pub report: TypeId,
    pub issue: TypeId,
    pub issues: String,
    pub severity: String,
    pub halt: Vec<String>,
    pub fix: Vec<String>,
    pub log: Vec<String>,
    pub auto_fixable: String,
}

/// `x-agent-match` on a report type that also has `x-task-match`.
pub struct AgentMatch {
    pub report: TypeId,
    pub agent: String,
    pub timestamp: String,
    pub alternatives: u64,
    pub optimized_at: i64,
    /// The projects array and the project key, from `x-task-match`.
    pub projects: String,
    pub project_key: String,
    /// The property of a project that carries `x-freshness`.
    pub loaded_at: Option<String>,
    pub refresh: Option<Refresh>,
}

pub struct Refresh {
    pub when: Vec<String>,
    pub recommendation: String,
    pub message: String,
    pub action: String,
}

/// `x-tool-response` on a tool's input type: the response is `{success: true, message,
/// <group>: {name: the input's string list at pointer, …}}`.
pub struct ToolResponse {
    pub input: TypeId,
    /// The response type's name.
    pub response: String,
    pub message: String,
    pub group: String,
    /// (name, input pointer to an array of strings).
    pub echo: Vec<(String, String)>,
}

/// `x-post-process` on an agent output type.
pub struct PostProcess {
    pub output: TypeId,
    /// (pointer, the action type with `x-fallback`).
    pub actions: Vec<(String, TypeId)>,
    /// (name, pointer, type at the pointer).
    pub updates: Vec<(String, String, TypeId)>,
    pub follow_up: String,
}

/// Every flow of the IR.
#[derive(Default)]
pub struct Flows {
    pub defaults: Vec<Defaults>,
    pub derive: Vec<Derive>,
    pub quality: Option<QualityFlow>,
    pub agent_match: Option<AgentMatch>,
    pub tool_responses: Vec<ToolResponse>,
    pub post_process: Vec<PostProcess>,
}

impl Flows {
    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty()
            && self.derive.is_empty()
            && self.quality.is_none()
            && self.agent_match.is_none()
            && self.tool_responses.is_empty()
            && self.post_process.is_empty()
    }

    /// The defaults of a type, if it has `x-defaults`.
    pub fn defaults_of(&self, ty: TypeId) -> Option<&Defaults> {
        self.defaults.iter().find(|d| d.ty == ty)
    }
}

type R<T> = std::result::Result<T, String>;

fn ann<'a>(anns: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    anns.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn text(v: &Value, k: &str) -> R<String> {
    match v.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(o) => Err(format!("`{k}` must be a non-empty string, not {o}")),
        None => Err(format!("`{k}` is missing")),
    }
}

fn opt_text(v: &Value, k: &str) -> R<Option<String>> {
    match v.get(k) {
        None => Ok(None),
        Some(_) => text(v, k).map(Some),
    }
}

fn pointer(v: &Value, k: &str) -> R<String> {
    let p = text(v, k)?;
    if !p.starts_with('/') {
        return Err(format!(
            "`{k}` must be a JSON Pointer starting with `/`, not {p:?}"
        ));
    }
    Ok(p)
}

fn strings(v: &Value, k: &str) -> R<Vec<String>> {
    v.get(k)
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|s| s.as_str().map(String::from)).collect())
        .ok_or_else(|| format!("`{k}` must be an array of strings"))
}

/// `[[a, b], …]` pairs of strings.
fn pairs(v: &Value, k: &str) -> R<Vec<(String, String)>> {
    let Some(list) = v.get(k) else {
        return Ok(Vec::new());
    };
    list.as_array()
        .and_then(|a| {
            a.iter()
                .map(|p| match p.as_array().map(Vec::as_slice) {
                    Some([Value::String(a), Value::String(b)]) => Some((a.clone(), b.clone())),
                    _ => None,
                })
                .collect()
        })
        .ok_or_else(|| format!("`{k}` must be an array of [string, string] pairs"))
}

fn struct_fields(ir: &Ir, id: TypeId) -> Vec<&crate::ir::Field> {
    match &ir.types[id].kind {
        TypeKind::Struct(s) => s.fields.iter().collect(),
        _ => Vec::new(),
    }
}

fn named(t: &Ty) -> Option<TypeId> {
    match t {
        Ty::Named(n) => Some(*n),
        Ty::Nullable(t) => named(t),
        _ => None,
    }
}

/// The type a property of `id` names, if any.
fn property_type(ir: &Ir, id: TypeId, wire: &str) -> Option<TypeId> {
    struct_fields(ir, id)
        .into_iter()
        .find(|f| f.wire == wire)
        .and_then(|f| named(&f.ty))
}

/// The named type at a pointer of properties below `id`.
fn type_at(ir: &Ir, id: TypeId, p: &str) -> R<TypeId> {
    let mut cur = id;
    for token in p.trim_start_matches('/').split('/') {
        cur = property_type(ir, cur, token)
            .ok_or_else(|| format!("`{p}`: {token:?} is not a property of a named type"))?;
    }
    Ok(cur)
}

fn has_property(ir: &Ir, id: TypeId, wire: &str) -> R<()> {
    if struct_fields(ir, id).iter().any(|f| f.wire == wire) {
        Ok(())
    } else {
        Err(format!(
            "{:?} is not a property of {}",
            wire, ir.types[id].raw_name
        ))
    }
}

/// A `#/$defs/X` (or `file.json#/$defs/X`) reference to a type.
fn type_ref(ir: &Ir, from: TypeId, r: &str) -> R<TypeId> {
    let (file, ptr) = r
        .split_once('#')
        .ok_or(format!("{r:?} is not a reference"))?;
    let file = if file.is_empty() {
        ir.types[from].origin.file.clone()
    } else {
        file.to_string()
    };
    ir.types
        .iter()
        .position(|t| t.origin.pointer == ptr && t.origin.file.ends_with(&file))
        .ok_or_else(|| format!("{r:?} names no type"))
}

/// Reads every flow annotation of the IR.
pub fn read(ir: &Ir) -> Result<Flows> {
    let mut flows = Flows::default();
    for (id, t) in ir.types.iter().enumerate() {
        let at = |key: &str, problem: String| {
            Error::schema(t.origin.clone(), format!("{key}: {problem}"))
        };
        if let Some(v) = ann(&t.annotations, "x-defaults") {
            flows
                .defaults
                .push(defaults(id, v).map_err(|p| at("x-defaults", p))?);
        }
        if let Some(v) = ann(&t.annotations, "x-derive") {
            flows
                .derive
                .push(derive(ir, id, v).map_err(|p| at("x-derive", p))?);
        }
        if let Some(v) = ann(&t.annotations, "x-quality-flow") {
            flows.quality = Some(quality(ir, id, v).map_err(|p| at("x-quality-flow", p))?);
        }
        if let Some(v) = ann(&t.annotations, "x-agent-match") {
            flows.agent_match = Some(agent_match(ir, id, v).map_err(|p| at("x-agent-match", p))?);
        }
        if let Some(v) = ann(&t.annotations, "x-tool-response") {
            let r = tool_response(ir, id, v).map_err(|p| at("x-tool-response", p))?;
            flows.tool_responses.push(r);
        }
        if let Some(v) = ann(&t.annotations, "x-post-process") {
            let r = post_process(ir, id, v).map_err(|p| at("x-post-process", p))?;
            flows.post_process.push(r);
        }
    }
    Ok(flows)
}

fn defaults(id: TypeId, v: &Value) -> R<Defaults> {
    let list = v.as_array().ok_or("must be an array of rules")?;
    let mut rules = Vec::new();
    for r in list {
        let property = text(r, "property")?;
        let budget = match r.get("budgetOf") {
            Some(b) => Some(BudgetOf {
                units: pointer(b, "units")?,
                key: text(b, "key")?,
                budget: text(b, "budget")?,
                total: text(b, "total")?,
                per_unit: text(b, "perUnit")?,
            }),
            None => None,
        };
        let value = r.get("value").cloned();
        if value.is_some() == budget.is_some() {
            return Err(format!("{property:?}: give one of `value` and `budgetOf`"));
        }
        rules.push(DefaultRule {
            property,
            value,
            budget,
            warn: r.get("warn").and_then(Value::as_bool).unwrap_or(false),
        });
    }
    Ok(Defaults { ty: id, rules })
}

fn derive(ir: &Ir, id: TypeId, v: &Value) -> R<Derive> {
    let parent = type_ref(ir, id, &text(v, "from")?)?;
    let number = v.get("number").ok_or("`number` is missing")?;
    let mut inherit = Vec::new();
    for (property, p) in pairs(v, "inherit")? {
        has_property(ir, id, &property)?;
        if !p.starts_with('/') {
            return Err(format!("`{p}` must be a JSON Pointer starting with `/`"));
        }
        let keys = property_type(ir, id, &property)
            .filter(|t| matches!(ir.types[*t].kind, TypeKind::Struct(_)))
            .map(|t| ir.declared_properties(t))
            .unwrap_or_default();
        inherit.push((property, p, keys));
    }
    let mut subsets = Vec::new();
    for s in v
        .get("subsets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let property = text(s, "property")?;
        has_property(ir, id, &property)?;
        subsets.push((property, pointer(s, "of")?, opt_text(s, "key")?));
    }
    let terminology = match v.get("terminology") {
        Some(t) => Some(Terminology {
            property: text(t, "property")?,
            glossary: pointer(t, "glossary")?,
            term: text(t, "term")?,
            first_use: text(t, "firstUse")?,
        }),
        None => None,
    };
    let neighbours = match v.get("neighbours") {
        Some(n) => Some(Neighbours {
            preceding: text(n, "preceding")?,
            following: text(n, "following")?,
            summaries: match n.get("summaries") {
                Some(_) => Some((
                    pointer(n, "summaries")?,
                    text(n, "summaryKey")?,
                    text(n, "summary")?,
                )),
                None => None,
            },
        }),
        None => None,
    };
    let budget = match v.get("budget") {
        Some(b) => Some((
            text(b, "property")?,
            opt_text(b, "map")?,
            opt_text(b, "unit")?,
        )),
        None => None,
    };
    let remaining = match v.get("remaining") {
        Some(r) => Some(Remaining {
            property: text(r, "property")?,
            parts: text(r, "parts")?,
            budget: text(r, "budget")?,
            status: text(r, "status")?,
            spent: strings(r, "spent")?,
        }),
        None => None,
    };
    if remaining.is_some() && budget.is_none() {
        return Err("`remaining` needs `budget`".into());
    }
    Ok(Derive {
        child: id,
        parent,
        units: pointer(v, "units")?,
        key: text(v, "key")?,
        number: text(number, "property")?,
        number_prefix: opt_text(number, "prefix")?,
        inherit,
        from_unit: pairs(v, "fromUnit")?,
        subsets,
        terminology,
        neighbours,
        budget,
        remaining,
    })
}

fn quality(ir: &Ir, id: TypeId, v: &Value) -> R<QualityFlow> {
    let score = ann(&ir.types[id].annotations, "x-quality-score")
        .ok_or("the type needs `x-quality-score` too")?;
    let issues = text(score, "issues")?;
    let issue = match struct_fields(ir, id)
        .iter()
        .find(|f| f.wire == issues)
        .map(|f| &f.ty)
    {
        Some(Ty::Array(item)) => named(item).ok_or("the issues must be objects")?,
        _ => return Err(format!("{issues:?} must be an array")),
    };
    let flow = QualityFlow {
        report: id,
        issue,
        issues,
        severity: text(score, "severity")?,
        halt: strings(v, "halt")?,
        fix: strings(v, "fix")?,
        log: strings(v, "log")?,
        auto_fixable: text(v, "autoFixable")?,
    };
    has_property(ir, issue, &flow.auto_fixable)?;
    let known = score.get("deductions").and_then(Value::as_object);
    let all: Vec<&String> = flow.halt.iter().chain(&flow.fix).chain(&flow.log).collect();
    for s in &all {
        if !known.is_some_and(|k| k.contains_key(s.as_str())) {
            return Err(format!(
                "severity {s:?} has no deduction in `x-quality-score`"
            ));
        }
    }
    if known.map_or(0, |k| k.len()) != all.len() {
        return Err("every severity must be in exactly one of `halt`, `fix`, `log`".into());
    }
    Ok(flow)
}

fn agent_match(ir: &Ir, id: TypeId, v: &Value) -> R<AgentMatch> {
    let tm = ann(&ir.types[id].annotations, "x-task-match")
        .ok_or("the type needs `x-task-match` too")?;
    let projects = pointer(tm, "projects")?;
    let project_key = text(tm, "projectKey")?;
    let project =
        match projects
            .trim_start_matches('/')
            .split('/')
            .try_fold((id, None), |(cur, _), token| {
                let f = struct_fields(ir, cur)
                    .into_iter()
                    .find(|f| f.wire == token)?;
                Some((named(&f.ty).unwrap_or(cur), Some(f.ty.clone())))
            }) {
            Some((_, Some(Ty::Array(item)))) => named(&item),
            _ => None,
        };
    let loaded_at = project.and_then(|p| {
        struct_fields(ir, p)
            .into_iter()
            .find(|f| ann(&f.annotations, "x-freshness").is_some())
            .map(|f| f.wire.clone())
    });
    if loaded_at.is_none() {
        return Err(
            "the projects need a property with `x-freshness` (timestamps are compared with it)"
                .into(),
        );
    }
    let refresh = match v.get("refresh") {
        Some(r) => {
            if loaded_at.is_none() {
                return Err("`refresh` needs a project property with `x-freshness`".into());
            }
            Some(Refresh {
                when: strings(r, "when")?,
                recommendation: text(r, "recommendation")?,
                message: text(r, "message")?,
                action: text(r, "action")?,
            })
        }
        None => None,
    };
    Ok(AgentMatch {
        report: id,
        agent: pointer(v, "agent")?,
        timestamp: pointer(v, "timestamp")?,
        alternatives: v
            .get("alternatives")
            .and_then(Value::as_u64)
            .ok_or("`alternatives` must be a count")?,
        optimized_at: v
            .get("optimizedAt")
            .and_then(Value::as_i64)
            .ok_or("`optimizedAt` must be an integer")?,
        projects,
        project_key,
        loaded_at,
        refresh,
    })
}

fn tool_response(ir: &Ir, id: TypeId, v: &Value) -> R<ToolResponse> {
    let echo = pairs(v, "echo")?;
    for (_, p) in &echo {
        let (owner, last) = p
            .rsplit_once('/')
            .ok_or(format!("{p:?} is not a pointer"))?;
        let owner = if owner.is_empty() {
            id
        } else {
            type_at(ir, id, owner)?
        };
        let f = struct_fields(ir, owner)
            .into_iter()
            .find(|f| f.wire == last);
        if !matches!(f.map(|f| &f.ty), Some(Ty::Array(item)) if **item == Ty::String) {
            return Err(format!("`{p}` must name an array of strings"));
        }
    }
    Ok(ToolResponse {
        input: id,
        response: text(v, "response")?,
        message: text(v, "message")?,
        group: text(v, "group")?,
        echo,
    })
}

fn post_process(ir: &Ir, id: TypeId, v: &Value) -> R<PostProcess> {
    let mut actions = Vec::new();
    for p in strings(v, "actions")? {
        let t = type_at(ir, id, &p)?;
        if ann(&ir.types[t].annotations, "x-fallback").is_none() {
            return Err(format!("the type at `{p}` has no `x-fallback`"));
        }
        actions.push((p, t));
    }
    let mut updates = Vec::new();
    for (name, p) in pairs(v, "updates")? {
        let t = type_at(ir, id, &p)?;
        updates.push((name, p, t));
    }
    Ok(PostProcess {
        output: id,
        actions,
        updates,
        follow_up: pointer(v, "followUp")?,
    })
}
