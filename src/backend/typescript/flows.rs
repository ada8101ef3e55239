//! The seed flows of [`crate::backend::flows`] as contexts of `templates/typescript/helpers/`:
//! literals, imports, exported names, and the statements whose layout depends on the length of
//! their arguments (laid out as prettier does).

use super::{fits, str_lit, ts_literal, Ctx};
use crate::backend::escape::typescript::{line, Line};
use crate::backend::flows::{Derive, Flows};
use crate::ir::TypeId;

pub(crate) struct DefaultRule {
    pub property: String,
    pub value: String,
    /// The `out[…] = budgetOf(…);` statement of a budget rule.
    pub budget: Option<String>,
    pub warn: bool,
}

pub(crate) struct DefaultsCtx {
    pub type_name: String,
    pub func: String,
    pub rules: Vec<DefaultRule>,
    pub budget_of: bool,
}

pub(crate) struct DeriveCtx {
    pub child: String,
    pub parent: String,
    pub func: String,
    pub arg: String,
    pub key_line: Line,
    pub parent_defaults: Option<String>,
    pub terminology: bool,
    pub calls: Vec<String>,
}

pub(crate) struct QualityFlowCtx {
    pub report: String,
    pub issue: String,
    pub issues: String,
    pub severity: String,
    pub auto_fixable: String,
    /// (severity as a property key, "halt" | "fix" | "log").
    pub table: Vec<(String, String)>,
    /// The signature of `qualityNextStep` fits on one line.
    pub sig_inline: bool,
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
    pub message: String,
    pub group: String,
    /// (name as a property key, input pointer literal).
    pub echo: Vec<(String, String)>,
}

pub(crate) struct ActionCtx {
    pub var: String,
    pub pointer: String,
    pub is_valid: String,
    /// The `replaceAt(…);` statement.
    pub replace: String,
}

pub(crate) struct UpdateCtx {
    pub field: String,
    pub ty: String,
    pub var: String,
    pub pointer: String,
    /// The assignment, as prettier lays it out.
    pub assign: String,
}

pub(crate) struct PostProcessCtx {
    pub func: String,
    pub result: String,
    pub output: String,
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
    /// Types and functions of the type modules the flows use.
    pub types: Vec<TypeId>,
    pub functions: Vec<(TypeId, String)>,
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

/// An argument: an expression, or an array literal that prettier may break one item a line.
enum Arg {
    Plain(String),
    Array(Vec<String>),
}

fn array(items: &[String]) -> Arg {
    Arg::Array(items.iter().map(|s| str_lit(s)).collect())
}

fn plain(s: impl Into<String>) -> Arg {
    Arg::Plain(s.into())
}

fn opt(s: &Option<String>) -> Arg {
    plain(s.as_deref().map_or_else(|| "null".to_string(), str_lit))
}

impl Arg {
    fn inline(&self) -> String {
        match self {
            Arg::Plain(s) => s.clone(),
            Arg::Array(items) => format!("[{}]", items.join(", ")),
        }
    }
}

/// A call statement as prettier prints it (no argument is hugged: array arguments never come
/// last): on one line within 80 columns, else one argument a line with a trailing comma.
fn call(indent: usize, head: &str, args: &[Arg], tail: &str) -> String {
    let pad = " ".repeat(indent);
    let inline: Vec<String> = args.iter().map(Arg::inline).collect();
    let one = format!("{pad}{head}({}){tail}", inline.join(", "));
    if fits(0, &one) {
        return one;
    }
    let mut out = format!("{pad}{head}(\n");
    for (a, text) in args.iter().zip(inline) {
        match a {
            Arg::Array(items) if !fits(indent + 2, &format!("{text},")) => {
                out.push_str(&format!("{pad}  [\n"));
                for i in items {
                    out.push_str(&format!("{pad}    {i},\n"));
                }
                out.push_str(&format!("{pad}  ],\n"));
            }
            _ => out.push_str(&format!("{pad}  {text},\n")),
        }
    }
    out.push_str(&format!("{pad}){tail}"));
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// `chapter_id` → `chapterId`.
fn camel(s: &str) -> String {
    lower_first(&crate::ir::names::camel_words(s))
}

pub(crate) fn context(ctx: &Ctx, flows: &Flows) -> FlowsCtx {
    let names = &ctx.names;
    let mut out = FlowsCtx::default();
    let budget_of = flows
        .defaults
        .iter()
        .any(|d| d.rules.iter().any(|r| r.budget.is_some()));
    for d in &flows.defaults {
        let func = format!("apply{}Defaults", names[d.ty]);
        out.exports.push(func.clone());
        out.defaults.push(DefaultsCtx {
            type_name: names[d.ty].clone(),
            func,
            budget_of,
            rules: d
                .rules
                .iter()
                .map(|r| DefaultRule {
                    property: str_lit(&r.property),
                    value: ts_literal(r.value.as_ref().unwrap_or(&serde_json::Value::Null)),
                    budget: r.budget.as_ref().map(|b| {
                        let head = format!("out[{}] = budgetOf", str_lit(&r.property));
                        let names = [b.total.clone(), b.per_unit.clone()];
                        let args = [
                            plain("value"),
                            plain(str_lit(&b.units)),
                            plain(str_lit(&b.key)),
                            plain(str_lit(&b.budget)),
                            array(&names),
                        ];
                        call(4, &head, &args, ";")
                    }),
                    warn: r.warn,
                })
                .collect(),
        });
    }
    if !flows.defaults.is_empty() {
        out.exports.push("DefaultsApplied".into());
    }
    for d in &flows.derive {
        let child = names[d.child].clone();
        out.types.extend([d.child, d.parent]);
        out.functions.push((d.child, format!("validate{child}")));
        out.functions.push((d.child, format!("parse{child}")));
        let func = format!("derive{child}");
        out.exports.push(func.clone());
        out.derive.push(DeriveCtx {
            parent: names[d.parent].clone(),
            func,
            arg: camel(&d.key),
            key_line: line(&d.key),
            parent_defaults: flows
                .defaults_of(d.parent)
                .map(|_| format!("apply{}Defaults", names[d.parent])),
            terminology: d.terminology.is_some(),
            calls: derive_calls(d),
            child,
        });
    }
    if let Some(q) = &flows.quality {
        out.types.extend([q.report, q.issue]);
        out.exports
            .extend(["QualityStep".into(), "qualityNextStep".into()]);
        let mut table = Vec::new();
        for (list, kind) in [(&q.halt, "halt"), (&q.fix, "fix"), (&q.log, "log")] {
            table.extend(list.iter().map(|s| (super::prop_key(s), kind.to_string())));
        }
        out.quality_flow = Some(QualityFlowCtx {
            report: names[q.report].clone(),
            issue: names[q.issue].clone(),
            issues: str_lit(&q.issues),
            severity: str_lit(&q.severity),
            auto_fixable: str_lit(&q.auto_fixable),
            table,
            sig_inline: fits(
                0,
                &format!(
                    "export function qualityNextStep(reports: readonly {}[]): QualityStep {{",
                    names[q.report]
                ),
            ),
            halt_text: q.halt.join(", "),
            fix_text: q.fix.join(", "),
            log_text: q.log.join(", "),
        });
    }
    if let Some(m) = &flows.agent_match {
        out.types.push(m.report);
        out.exports
            .extend(["AgentScore", "AgentRecommendation", "matchTaskToAgent"].map(String::from));
        if m.refresh.is_some() {
            out.exports
                .extend(["RefreshRecommendation", "refreshRecommendation"].map(String::from));
        }
        out.agent_match = Some(AgentMatchCtx {
            report: names[m.report].clone(),
            agent: str_lit(&m.agent),
            timestamp: str_lit(&m.timestamp),
            alternatives: m.alternatives,
            optimized_at: m.optimized_at,
            projects: str_lit(&m.projects),
            project_key: str_lit(&m.project_key),
            refresh: m.refresh.as_ref().map(|r| RefreshCtx {
                when: r
                    .when
                    .iter()
                    .map(|s| str_lit(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                when_text: r.when.join(" or "),
                loaded_at: str_lit(m.loaded_at.as_deref().unwrap_or_default()),
                recommendation: str_lit(&r.recommendation),
                recommendation_line: line(&r.recommendation),
                message: str_lit(&r.message),
                action: str_lit(&r.action),
            }),
        });
    }
    for t in &flows.tool_responses {
        let input = names[t.input].clone();
        out.functions.push((t.input, format!("is{input}")));
        let func = lower_first(&t.response);
        out.exports.extend([func.clone(), t.response.clone()]);
        out.tool_responses.push(ToolResponseCtx {
            response: t.response.clone(),
            input,
            func,
            message: str_lit(&t.message),
            group: super::prop_key(&t.group),
            echo: t
                .echo
                .iter()
                .map(|(n, p)| (super::prop_key(n), str_lit(p)))
                .collect(),
        });
    }
    for p in &flows.post_process {
        let name = names[p.output].clone();
        out.types.push(p.output);
        out.functions.push((p.output, format!("validate{name}")));
        out.functions.push((p.output, format!("is{name}")));
        let func = format!("process{name}");
        let result = format!("Processed{name}");
        out.exports
            .extend([func.clone(), result.clone(), "SeenViolation".into()]);
        let actions = p
            .actions
            .iter()
            .enumerate()
            .map(|(i, (ptr, t))| {
                let base = names[*t].replacen("Next", "", 1);
                let short = base.strip_suffix("Action").unwrap_or(&base).to_string();
                let fallback = format!("{}FallbackAction()", lower_first(&short));
                ActionCtx {
                    var: format!("action{i}"),
                    pointer: str_lit(ptr),
                    is_valid: format!("isValid{base}"),
                    replace: call(
                        4,
                        "replaceAt",
                        &[plain("fixed"), plain(str_lit(ptr)), plain(fallback)],
                        ";",
                    ),
                }
            })
            .collect();
        let updates = p
            .updates
            .iter()
            .map(|(n, ptr, t)| {
                out.types.push(*t);
                out.functions.push((*t, format!("is{}", names[*t])));
                let field = format!(
                    "update_{}",
                    crate::ir::names::field_name(crate::ir::names::Lang::Python, n)
                );
                let var = camel(n);
                let assign = format!("  result.{field} = is{}({var}) ? {var} : null;", names[*t]);
                let assign = if fits(0, &assign) {
                    assign
                } else {
                    format!(
                        "  result.{field} = is{}({var})\n    ? {var}\n    : null;",
                        names[*t]
                    )
                };
                UpdateCtx {
                    field,
                    ty: names[*t].clone(),
                    var,
                    pointer: str_lit(ptr),
                    assign,
                }
            })
            .collect();
        out.post_process.push(PostProcessCtx {
            func,
            result,
            output: name,
            actions,
            updates,
            follow_up: str_lit(&p.follow_up),
        });
    }
    out.exports.dedup();
    out
}

/// The statements of a derivation, in the order the specification gives.
fn derive_calls(d: &Derive) -> Vec<String> {
    let mut calls = Vec::new();
    let mut push = |head: &str, args: Vec<Arg>| calls.push(call(2, head, &args, ";"));
    push(
        "const d = Derivation.create",
        vec![
            plain("whole"),
            plain("input"),
            plain(str_lit(&d.units)),
            plain(str_lit(&d.key)),
            plain(camel(&d.key)),
        ],
    );
    push(
        "d.number",
        vec![plain(str_lit(&d.number)), opt(&d.number_prefix)],
    );
    for (p, ptr, keys) in &d.inherit {
        push(
            "d.inherit",
            vec![array(keys), plain(str_lit(p)), plain(str_lit(ptr))],
        );
    }
    for (p, u) in &d.from_unit {
        push("d.copyUnit", vec![plain(str_lit(p)), plain(str_lit(u))]);
    }
    for (p, of, key) in &d.subsets {
        push(
            "d.subset",
            vec![plain(str_lit(p)), plain(str_lit(of)), opt(key)],
        );
    }
    if let Some(t) = &d.terminology {
        push(
            "d.terminology",
            vec![
                plain(str_lit(&t.property)),
                plain(str_lit(&t.glossary)),
                array(&[t.term.clone(), t.first_use.clone()]),
                plain("termsUsed"),
            ],
        );
    }
    if let Some(n) = &d.neighbours {
        let summaries = match &n.summaries {
            Some((a, b, c)) => array(&[a.clone(), b.clone(), c.clone()]),
            None => plain("null"),
        };
        push(
            "d.neighbours",
            vec![
                summaries,
                plain(str_lit(&n.preceding)),
                plain(str_lit(&n.following)),
            ],
        );
    }
    if let Some((p, m, u)) = &d.budget {
        push("d.budget", vec![plain(str_lit(p)), opt(m), opt(u)]);
        if let Some(r) = &d.remaining {
            push(
                "d.remaining",
                vec![
                    array(&r.spent),
                    array(&[r.parts.clone(), r.budget.clone(), r.status.clone()]),
                    plain(str_lit(&r.property)),
                    plain(str_lit(p)),
                ],
            );
        }
    }
    calls
}
