//! The seed flows (`x-defaults`, `x-derive`, `x-quality-flow`, `x-agent-match`,
//! `x-tool-response`, `x-post-process`) as contexts of `templates/rust/helpers/`: every property
//! name, pointer and constant of [`crate::backend::flows`] becomes a Rust literal here.

use heck::ToSnakeCase;
use serde_json::Value;

use super::{literal, raw_literal};
use crate::backend::escape::rust::{line, Line};
use crate::backend::flows::Flows;
use crate::ir::names::{self, Lang};
use crate::ir::{Ir, TypeId, TypeKind};

pub(crate) struct DefaultBudget {
    /// The `let budget = budget_of(…);` statement.
    pub call: String,
}

pub(crate) struct DefaultRule {
    pub property: String,
    pub value: String,
    pub budget: Option<DefaultBudget>,
    pub warn: bool,
}

pub(crate) struct DefaultsCtx {
    pub type_name: String,
    pub func: String,
    pub rules: Vec<DefaultRule>,
    /// Some rule of some type builds a budget (the shared `budget_of` is emitted).
    pub budget_of: bool,
}

pub(crate) struct DeriveCtx {
    pub child: String,
    pub parent: String,
    pub func: String,
    pub arg: String,
    pub key_line: Line,
    pub node: usize,
    pub parent_defaults: Option<String>,
    pub terminology: bool,
    /// The statements that build the value, from `Derivation::new` to the last rule.
    pub calls: Vec<String>,
}

pub(crate) struct QualityFlowCtx {
    pub report: String,
    pub issue: String,
    pub issues: String,
    pub severity: String,
    pub auto_fixable: String,
    /// Match patterns (`"a" | "b"`), empty when there is no such severity.
    pub halt: String,
    pub fix: String,
    pub log: String,
    pub halt_text: String,
    pub fix_text: String,
    pub log_text: String,
}

pub(crate) struct RefreshCtx {
    pub when: String,
    pub when_text: String,
    pub loaded_at: String,
    pub recommendation: String,
    pub recommendation_line: Line,
    pub message: String,
    pub action: String,
}

pub(crate) struct AgentMatchCtx {
    pub report: String,
    pub agent: String,
    pub timestamp: String,
    pub alternatives: u64,
    pub optimized_at: i64,
    pub projects: String,
    pub project_key: String,
    pub refresh: Option<RefreshCtx>,
}

pub(crate) struct ToolResponseCtx {
    pub response: String,
    pub input: String,
    pub func: String,
    pub input_node: usize,
    pub message: String,
    pub group: String,
    pub group_wire: String,
    /// (name, input pointer) as literals.
    pub echo: Vec<(String, String)>,
}

pub(crate) struct ActionCtx {
    pub pointer: String,
    pub is_valid: String,
    pub constant: String,
}

pub(crate) struct UpdateCtx {
    pub field: String,
    pub ty: String,
    /// `result.<field> = typed_at(…);`
    pub assign: String,
}

pub(crate) struct PostProcessCtx {
    pub func: String,
    pub result: String,
    pub output: String,
    pub node: usize,
    pub actions: Vec<ActionCtx>,
    pub updates: Vec<UpdateCtx>,
    pub follow_up: String,
}

#[derive(Default)]
pub(crate) struct FlowsCtx {
    pub defaults: Vec<DefaultsCtx>,
    pub derive: Vec<DeriveCtx>,
    pub quality_flow: Option<QualityFlowCtx>,
    pub agent_match: Option<AgentMatchCtx>,
    pub tool_responses: Vec<ToolResponseCtx>,
    pub post_process: Vec<PostProcessCtx>,
}

impl FlowsCtx {
    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty()
            && self.derive.is_empty()
            && self.quality_flow.is_none()
            && self.agent_match.is_none()
            && self.tool_responses.is_empty()
            && self.post_process.is_empty()
    }
}

fn opt(s: &Option<String>) -> String {
    s.as_deref()
        .map_or_else(|| "None".to_string(), |s| format!("Some({})", literal(s)))
}

fn pattern(items: &[String]) -> String {
    items
        .iter()
        .map(|s| literal(s))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| literal(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Rust name of the property `wire` of a struct.
fn field(ir: &Ir, id: TypeId, wire: &str) -> String {
    let TypeKind::Struct(s) = &ir.types[id].kind else {
        return names::field_name(Lang::Rust, wire);
    };
    let wires: Vec<&str> = s.fields.iter().map(|f| f.wire.as_str()).collect();
    names::field_names(Lang::Rust, &wires)
        .into_iter()
        .zip(&wires)
        .find(|(_, w)| **w == wire)
        .map_or_else(|| names::field_name(Lang::Rust, wire), |(n, _)| n)
}

/// The stem of the fallback helpers of an action type (as `helpers.rs` names them).
fn fallback_stem(name: &str) -> String {
    name.trim_end_matches("NextAction")
        .trim_end_matches("Action")
        .to_snake_case()
}

pub(crate) fn context(ir: &Ir, names: &[String], flows: &Flows) -> FlowsCtx {
    let mut out = FlowsCtx::default();
    let budget_of = flows
        .defaults
        .iter()
        .any(|d| d.rules.iter().any(|r| r.budget.is_some()));
    for d in &flows.defaults {
        out.defaults.push(DefaultsCtx {
            type_name: names[d.ty].clone(),
            func: defaults_func(&names[d.ty]),
            budget_of,
            rules: d
                .rules
                .iter()
                .map(|r| DefaultRule {
                    property: literal(&r.property),
                    value: raw_literal(&r.value.clone().unwrap_or(Value::Null).to_string()),
                    budget: r.budget.as_ref().map(|b| DefaultBudget {
                        call: call(
                            8,
                            "let budget = budget_of",
                            &[
                                "value".into(),
                                literal(&b.units),
                                literal(&b.key),
                                literal(&b.budget),
                                format!("[{}, {}]", literal(&b.total), literal(&b.per_unit)),
                            ],
                            ";",
                        ),
                    }),
                    warn: r.warn,
                })
                .collect(),
        });
    }
    for d in &flows.derive {
        out.derive.push(DeriveCtx {
            child: names[d.child].clone(),
            parent: names[d.parent].clone(),
            func: format!("derive_{}", names[d.child].to_snake_case()),
            arg: d.key.to_snake_case(),
            key_line: line(&d.key),
            node: ir.types[d.child].node,
            parent_defaults: flows
                .defaults_of(d.parent)
                .map(|_| defaults_func(&names[d.parent])),
            terminology: d.terminology.is_some(),
            calls: derive_calls(d),
        });
    }
    if let Some(q) = &flows.quality {
        let text = |l: &[String]| l.join(", ");
        out.quality_flow = Some(QualityFlowCtx {
            report: names[q.report].clone(),
            issue: names[q.issue].clone(),
            issues: field(ir, q.report, &q.issues),
            severity: field(ir, q.issue, &q.severity),
            auto_fixable: field(ir, q.issue, &q.auto_fixable),
            halt: pattern(&q.halt),
            fix: pattern(&q.fix),
            log: pattern(&q.log),
            halt_text: text(&q.halt),
            fix_text: text(&q.fix),
            log_text: text(&q.log),
        });
    }
    if let Some(m) = &flows.agent_match {
        out.agent_match = Some(AgentMatchCtx {
            report: names[m.report].clone(),
            agent: literal(&m.agent),
            timestamp: literal(&m.timestamp),
            alternatives: m.alternatives,
            optimized_at: m.optimized_at,
            projects: literal(&m.projects),
            project_key: literal(&m.project_key),
            refresh: m.refresh.as_ref().map(|r| RefreshCtx {
                when: r
                    .when
                    .iter()
                    .map(|s| literal(s))
                    .collect::<Vec<_>>()
                    .join(" | "),
                when_text: r.when.join(" or "),
                loaded_at: literal(m.loaded_at.as_deref().unwrap_or_default()),
                recommendation: literal(&r.recommendation),
                recommendation_line: line(&r.recommendation),
                message: literal(&r.message),
                action: literal(&r.action),
            }),
        });
    }
    for t in &flows.tool_responses {
        out.tool_responses.push(ToolResponseCtx {
            func: t.response.to_snake_case(),
            response: t.response.clone(),
            input: names[t.input].clone(),
            input_node: ir.types[t.input].node,
            message: literal(&t.message),
            group: names::field_name(Lang::Rust, &t.group),
            group_wire: literal(&t.group),
            echo: t
                .echo
                .iter()
                .map(|(n, p)| (literal(n), literal(p)))
                .collect(),
        });
    }
    for p in &flows.post_process {
        let name = &names[p.output];
        out.post_process.push(PostProcessCtx {
            func: format!("process_{}", name.to_snake_case()),
            result: format!("Processed{name}"),
            output: name.clone(),
            node: ir.types[p.output].node,
            actions: p
                .actions
                .iter()
                .map(|(ptr, t)| {
                    let stem = fallback_stem(&names[*t]);
                    ActionCtx {
                        pointer: literal(ptr),
                        is_valid: format!("is_valid_{stem}_action"),
                        constant: format!("{}_FALLBACK", stem.to_uppercase()),
                    }
                })
                .collect(),
            updates: p
                .updates
                .iter()
                .map(|(n, ptr, t)| {
                    let field = format!("update_{}", n.to_snake_case());
                    let args = [
                        "&fixed".to_string(),
                        literal(ptr),
                        format!("super::validators::n{}", ir.types[*t].node),
                    ];
                    UpdateCtx {
                        assign: call(4, &format!("result.{field} = typed_at"), &args, ";"),
                        field,
                        ty: names[*t].clone(),
                    }
                })
                .collect(),
            follow_up: literal(&p.follow_up),
        });
    }
    out
}

/// `apply_<type>_defaults`.
fn defaults_func(type_name: &str) -> String {
    format!("apply_{}_defaults", type_name.to_snake_case())
}

/// A call statement laid out as rustfmt lays it out: on one line when it fits in 100
/// columns, else one argument per line.
fn call(indent: usize, head: &str, args: &[String], tail: &str) -> String {
    let pad = " ".repeat(indent);
    let one = format!("{pad}{head}({}){tail}", args.join(", "));
    if one.len() <= 100 {
        return one;
    }
    let mut out = format!("{pad}{head}(\n");
    for a in args {
        out.push_str(&format!("{pad}    {a},\n"));
    }
    out.push_str(&format!("{pad}){tail}"));
    out
}

/// The statements of a derivation, in the order the specification gives.
fn derive_calls(d: &crate::backend::flows::Derive) -> Vec<String> {
    let mut calls = Vec::new();
    let arg = d.key.to_snake_case();
    let mut push = |head: &str, args: Vec<String>| calls.push(call(4, head, &args, "?;"));
    push(
        "let mut d = Derivation::new",
        vec![
            "&parent".into(),
            "input".into(),
            literal(&d.units),
            literal(&d.key),
            arg,
        ],
    );
    push("d.number", vec![literal(&d.number), opt(&d.number_prefix)]);
    for (p, ptr, keys) in &d.inherit {
        push(
            "d.inherit",
            vec![literal(p), literal(ptr), format!("&[{}]", list(keys))],
        );
    }
    for (p, u) in &d.from_unit {
        push("d.copy_unit", vec![literal(p), literal(u)]);
    }
    for (p, of, key) in &d.subsets {
        push("d.subset", vec![literal(p), literal(of), opt(key)]);
    }
    if let Some(t) = &d.terminology {
        push(
            "d.terminology",
            vec![
                literal(&t.property),
                literal(&t.glossary),
                format!("[{}, {}]", literal(&t.term), literal(&t.first_use)),
                "terms_used".into(),
            ],
        );
    }
    if let Some(n) = &d.neighbours {
        let summaries = n.summaries.as_ref().map_or_else(
            || "None".to_string(),
            |(a, b, c)| format!("Some([{}])", list(&[a.clone(), b.clone(), c.clone()])),
        );
        push(
            "d.neighbours",
            vec![literal(&n.preceding), literal(&n.following), summaries],
        );
    }
    if let Some((p, m, u)) = &d.budget {
        push("d.budget", vec![literal(p), opt(m), opt(u)]);
        if let Some(r) = &d.remaining {
            let parts = format!(
                "[{}]",
                list(&[r.parts.clone(), r.budget.clone(), r.status.clone()])
            );
            push(
                "d.remaining",
                vec![
                    literal(&r.property),
                    literal(p),
                    parts,
                    format!("&[{}]", list(&r.spent)),
                ],
            );
        }
    }
    calls
}
