//! The seed flows of [`crate::backend::flows`] as contexts of `templates/python/helpers/`:
//! literals, imports, exported names, and the statements whose layout depends on the length of
//! their arguments (laid out as `ruff format` does).

use heck::ToSnakeCase;

use super::lit::{self, WIDTH};
use crate::backend::flows::{Derive, Flows};
use crate::ir::TypeId;

pub struct DefaultRule {
    pub property: String,
    pub value: String,
    pub budget: Option<String>,
    pub warn: bool,
}

pub struct DefaultsCtx {
    pub type_name: String,
    pub func: String,
    pub rules: Vec<DefaultRule>,
    pub budget_of: bool,
}

pub struct DeriveCtx {
    pub child: String,
    pub child_snake: String,
    pub parent: String,
    pub func: String,
    pub arg: String,
    pub key_doc: String,
    pub parent_defaults: Option<String>,
    pub terminology: bool,
    pub calls: Vec<String>,
}

pub struct QualityFlowCtx {
    pub report: String,
    pub issues: String,
    pub severity: String,
    pub auto_fixable: String,
    pub table: Vec<(String, String)>,
}

pub struct RefreshCtx {
    pub when: String,
    pub when_text: String,
    pub loaded_at: String,
    pub recommendation: String,
    pub recommendation_doc: String,
    pub message: String,
    pub action: String,
}

pub struct AgentMatchCtx {
    pub report: String,
    pub agent: String,
    pub timestamp: String,
    pub alternatives: u64,
    pub optimized_at: i64,
    pub projects: String,
    pub project_key: String,
    pub refresh: Option<RefreshCtx>,
}

pub struct ToolResponseCtx {
    pub response: String,
    pub input: String,
    pub input_snake: String,
    pub func: String,
    pub message: String,
    pub group: String,
    pub group_field: String,
    /// (name, input pointer) as literals.
    pub echo: Vec<(String, String)>,
}

pub struct UpdateCtx {
    pub field: String,
    pub pointer: String,
}

pub struct PostProcessCtx {
    pub func: String,
    pub result: String,
    pub output_snake: String,
    /// The statements that replace each invalid action.
    pub actions: Vec<String>,
    pub updates: Vec<UpdateCtx>,
    pub follow_up: String,
}

#[derive(Default)]
pub struct FlowsCtx {
    pub defaults: Vec<DefaultsCtx>,
    pub derive: Vec<DeriveCtx>,
    pub quality_flow: Option<QualityFlowCtx>,
    pub agent_match: Option<AgentMatchCtx>,
    pub tool_responses: Vec<ToolResponseCtx>,
    pub post_process: Vec<PostProcessCtx>,
    /// Names to import from the type modules, by type.
    pub imports: Vec<(TypeId, String)>,
    pub exports: Vec<String>,
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

fn s(x: &str) -> String {
    lit::string(x)
}

fn opt(x: &Option<String>) -> String {
    x.as_deref().map_or_else(|| "None".to_string(), s)
}

fn tuple(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|i| s(i)).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

/// A call statement as `ruff format` lays it out: on one line within 88 columns, else the
/// arguments on one indented line, else one argument a line with a trailing comma.
pub fn call(indent: usize, head: &str, args: &[String], tail: &str) -> String {
    let pad = " ".repeat(indent);
    let one = format!("{pad}{head}({}){tail}", args.join(", "));
    if one.chars().count() <= WIDTH {
        return one;
    }
    let middle = format!("{pad}    {}", args.join(", "));
    if middle.chars().count() <= WIDTH {
        return format!("{pad}{head}(\n{middle}\n{pad}){tail}");
    }
    let mut out = format!("{pad}{head}(\n");
    for a in args {
        out.push_str(&format!("{pad}    {a},\n"));
    }
    out.push_str(&format!("{pad}){tail}"));
    out
}

pub fn context(names: &[String], flows: &Flows) -> FlowsCtx {
    let mut out = FlowsCtx::default();
    let budget_of = flows
        .defaults
        .iter()
        .any(|d| d.rules.iter().any(|r| r.budget.is_some()));
    for d in &flows.defaults {
        let func = format!("apply_{}_defaults", names[d.ty].to_snake_case());
        out.exports.extend([func.clone(), "DefaultsApplied".into()]);
        out.defaults.push(DefaultsCtx {
            type_name: names[d.ty].clone(),
            func,
            budget_of,
            rules: d
                .rules
                .iter()
                .map(|r| DefaultRule {
                    property: s(&r.property),
                    value: lit::value(
                        r.value.as_ref().unwrap_or(&serde_json::Value::Null),
                        8,
                        10,
                        0,
                    ),
                    budget: r.budget.as_ref().map(|b| {
                        let args = [
                            "value".to_string(),
                            s(&b.units),
                            s(&b.key),
                            s(&b.budget),
                            tuple(&[b.total.clone(), b.per_unit.clone()]),
                        ];
                        call(
                            8,
                            &format!("out[{}] = _budget_of", s(&r.property)),
                            &args,
                            "",
                        )
                    }),
                    warn: r.warn,
                })
                .collect(),
        });
    }
    for d in &flows.derive {
        let child = names[d.child].clone();
        let child_snake = child.to_snake_case();
        out.imports.extend([
            (d.child, child.clone()),
            (d.parent, names[d.parent].clone()),
            (d.child, format!("parse_{child_snake}")),
            (d.child, format!("validate_{child_snake}")),
        ]);
        let func = format!("derive_{child_snake}");
        out.exports.push(func.clone());
        out.derive.push(DeriveCtx {
            parent: names[d.parent].clone(),
            func,
            arg: d.key.to_snake_case(),
            key_doc: d.key.clone(),
            parent_defaults: flows
                .defaults_of(d.parent)
                .map(|_| format!("apply_{}_defaults", names[d.parent].to_snake_case())),
            terminology: d.terminology.is_some(),
            calls: derive_calls(d),
            child,
            child_snake,
        });
    }
    if let Some(q) = &flows.quality {
        out.imports.push((q.report, names[q.report].clone()));
        out.exports
            .extend(["QualityStep".into(), "quality_next_step".into()]);
        let mut table = Vec::new();
        for (list, kind) in [(&q.halt, "halt"), (&q.fix, "fix"), (&q.log, "log")] {
            table.extend(list.iter().map(|x| (s(x), kind.to_string())));
        }
        out.quality_flow = Some(QualityFlowCtx {
            report: names[q.report].clone(),
            issues: s(&q.issues),
            severity: s(&q.severity),
            auto_fixable: s(&q.auto_fixable),
            table,
        });
    }
    if let Some(m) = &flows.agent_match {
        out.imports.push((m.report, names[m.report].clone()));
        out.exports
            .extend(["AgentScore", "AgentRecommendation", "match_task_to_agent"].map(String::from));
        if m.refresh.is_some() {
            out.exports
                .extend(["RefreshRecommendation", "refresh_recommendation"].map(String::from));
        }
        out.agent_match = Some(AgentMatchCtx {
            report: names[m.report].clone(),
            agent: s(&m.agent),
            timestamp: s(&m.timestamp),
            alternatives: m.alternatives,
            optimized_at: m.optimized_at,
            projects: s(&m.projects),
            project_key: s(&m.project_key),
            refresh: m.refresh.as_ref().map(|r| {
                let when: Vec<String> = r.when.iter().map(|w| s(w)).collect();
                RefreshCtx {
                    when: if when.len() == 1 {
                        format!("{},", when[0])
                    } else {
                        when.join(", ")
                    },
                    when_text: r.when.join(" or "),
                    loaded_at: s(m.loaded_at.as_deref().unwrap_or_default()),
                    recommendation: s(&r.recommendation),
                    recommendation_doc: format!(
                        "``{}``",
                        r.recommendation.replace(['\\', '"'], "")
                    ),
                    message: s(&r.message),
                    action: s(&r.action),
                }
            }),
        });
    }
    for t in &flows.tool_responses {
        let input = names[t.input].clone();
        let input_snake = input.to_snake_case();
        out.imports
            .push((t.input, format!("validate_{input_snake}")));
        let func = t.response.to_snake_case();
        out.exports.extend([func.clone(), t.response.clone()]);
        out.tool_responses.push(ToolResponseCtx {
            response: t.response.clone(),
            input,
            input_snake,
            func,
            message: s(&t.message),
            group: s(&t.group),
            group_field: t.group.clone(),
            echo: t.echo.iter().map(|(n, p)| (s(n), s(p))).collect(),
        });
    }
    for p in &flows.post_process {
        let name = names[p.output].clone();
        let snake = name.to_snake_case();
        out.imports.push((p.output, format!("validate_{snake}")));
        let func = format!("process_{snake}");
        let result = format!("Processed{name}");
        out.exports
            .extend([func.clone(), result.clone(), "SeenViolation".into()]);
        let actions = p
            .actions
            .iter()
            .map(|(ptr, t)| {
                let stem = names[*t].to_snake_case();
                let stem = stem.strip_suffix("_next_action").unwrap_or(&stem).to_string();
                let found = call(4, "found, action = _present", &["fixed".into(), s(ptr)], "");
                let replace = call(
                    8,
                    "_replace",
                    &["fixed".into(), s(ptr), format!("{stem}_fallback_action()")],
                    "",
                );
                format!(
                    "{found}\n    if found and not is_valid_{stem}_action(action):\n{replace}\n        result[\"replaced\"].append({})",
                    s(ptr)
                )
            })
            .collect();
        out.post_process.push(PostProcessCtx {
            func,
            result,
            output_snake: snake,
            actions,
            updates: p
                .updates
                .iter()
                .map(|(n, ptr, _)| UpdateCtx {
                    field: format!("update_{}", n.to_snake_case()),
                    pointer: s(ptr),
                })
                .collect(),
            follow_up: s(&p.follow_up),
        });
    }
    out.exports.sort();
    out.exports.dedup();
    out
}

/// The statements of a derivation, in the order the specification gives.
fn derive_calls(d: &Derive) -> Vec<String> {
    let mut calls = Vec::new();
    let mut push = |head: &str, args: Vec<String>| calls.push(call(4, head, &args, ""));
    push(
        "d = _Derivation",
        vec![
            "whole".into(),
            "given".into(),
            s(&d.units),
            s(&d.key),
            d.key.to_snake_case(),
        ],
    );
    push("d.number", vec![s(&d.number), opt(&d.number_prefix)]);
    for (p, ptr, keys) in &d.inherit {
        push("d.inherit", vec![tuple_or_empty(keys), s(p), s(ptr)]);
    }
    for (p, u) in &d.from_unit {
        push("d.copy_unit", vec![s(p), s(u)]);
    }
    for (p, of, key) in &d.subsets {
        push("d.subset", vec![s(p), s(of), opt(key)]);
    }
    if let Some(t) = &d.terminology {
        push(
            "d.terminology",
            vec![
                s(&t.property),
                s(&t.glossary),
                tuple(&[t.term.clone(), t.first_use.clone()]),
                "terms_used".into(),
            ],
        );
    }
    if let Some(n) = &d.neighbours {
        let summaries = match &n.summaries {
            Some((a, b, c)) => tuple(&[a.clone(), b.clone(), c.clone()]),
            None => "None".into(),
        };
        push(
            "d.neighbours",
            vec![summaries, s(&n.preceding), s(&n.following)],
        );
    }
    if let Some((p, m, u)) = &d.budget {
        push("d.budget", vec![s(p), opt(m), opt(u)]);
        if let Some(r) = &d.remaining {
            push(
                "d.remaining",
                vec![
                    tuple_or_empty(&r.spent),
                    tuple(&[r.parts.clone(), r.budget.clone(), r.status.clone()]),
                    s(&r.property),
                    s(p),
                ],
            );
        }
    }
    calls
}

fn tuple_or_empty(items: &[String]) -> String {
    if items.is_empty() {
        "()".into()
    } else {
        tuple(items)
    }
}
