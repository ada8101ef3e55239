//! Python source layout: docstrings, annotations and assignments broken over lines as `ruff format` does.

use super::*;
use crate::backend::escape::{self, python::Docstring};

/// The documentation of a type: its description, or a sentence naming it.
pub(super) fn type_doc(t: &crate::ir::TypeDef) -> String {
    match t.doc.as_deref() {
        Some(d) if !d.trim().is_empty() => d.to_string(),
        _ => format!("The `{}` type.", t.raw_name),
    }
}

/// Docstring text (see [`escape::python::docstring`]).
pub(super) fn docstring(text: &str, indent: usize) -> Docstring {
    escape::python::docstring(text, indent)
}

/// A field annotation, with the structure `ruff format` breaks it by.
pub(super) enum AnnShape {
    Atom(String),
    /// `a | b | …`
    Union(Vec<String>),
    /// `head[a, b]`
    Sub(&'static str, Vec<String>),
}

impl AnnShape {
    pub(super) fn flat(&self) -> String {
        match self {
            AnnShape::Atom(a) => a.clone(),
            AnnShape::Union(parts) => parts.join(" | "),
            AnnShape::Sub(head, items) => format!("{head}[{}]", items.join(", ")),
        }
    }

    /// Broken over lines at `indent`: a union in parentheses (one line, else one operand
    /// per line), a subscript inside its brackets, a name in parentheses.
    pub(super) fn broken(&self, indent: usize) -> String {
        let pad = " ".repeat(indent + 4);
        let end = " ".repeat(indent);
        match self {
            AnnShape::Union(parts) => {
                let one = parts.join(" | ");
                if indent + 4 + one.chars().count() <= lit::WIDTH {
                    return format!("(\n{pad}{one}\n{end})");
                }
                // An operand too long for its line breaks inside its brackets.
                let parts: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        union_operand(p, indent + 4, indent + 4 + if i == 0 { 0 } else { 2 })
                    })
                    .collect();
                format!("(\n{pad}{}\n{end})", parts.join(&format!("\n{pad}| ")))
            }
            AnnShape::Sub(head, items) => {
                lit::args(items, &format!("{head}["), "]", indent, lit::WIDTH, 0)
            }
            // Parentheses that do not make it fit are left out.
            AnnShape::Atom(a) if indent + 4 + a.chars().count() > lit::WIDTH => a.clone(),
            AnnShape::Atom(a) => format!("(\n{pad}{a}\n{end})"),
        }
    }
}

/// One argument of a call; a default keeps its JSON value to be laid out over lines.
pub(super) struct FieldArg {
    pub(super) text: String,
    pub(super) default: Option<Value>,
}

impl FieldArg {
    pub(super) fn text(text: String) -> FieldArg {
        FieldArg {
            text,
            default: None,
        }
    }
}

/// The right-hand side of an assignment: a name or literal, or a call (or subscript) whose
/// arguments `ruff format` can break over lines.
pub(super) enum Rhs {
    Atom(String),
    Call {
        callee: String,
        open: &'static str,
        close: &'static str,
        args: Vec<FieldArg>,
    },
}

impl Rhs {
    pub(super) fn field(args: Vec<FieldArg>) -> Rhs {
        Rhs::Call {
            callee: "Field".into(),
            open: "(",
            close: ")",
            args,
        }
    }

    pub(super) fn flat(&self) -> String {
        match self {
            Rhs::Atom(a) => a.clone(),
            Rhs::Call {
                callee,
                open,
                close,
                args,
            } => {
                let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                format!("{callee}{open}{}{close}", args.join(", "))
            }
        }
    }

    /// The call with its arguments below it, at `indent + 4`: all on one line, else one per
    /// line (a default literal broken too, as `ruff format` does).
    pub(super) fn broken(&self, indent: usize) -> String {
        match self {
            Rhs::Atom(a) => a.clone(),
            Rhs::Call {
                callee,
                open,
                close,
                args,
            } => {
                let flat: Vec<String> = args.iter().map(|a| a.text.clone()).collect();
                let joined = flat.join(", ");
                let pad = " ".repeat(indent + 4);
                let end = " ".repeat(indent);
                if args.len() == 1 || indent + 4 + joined.chars().count() <= lit::WIDTH {
                    return format!("{callee}{open}\n{pad}{joined}\n{end}{close}");
                }
                let items: Vec<String> = args
                    .iter()
                    .map(|a| match &a.default {
                        Some(v) => format!("default={}", lit::value(v, indent + 4, 8, 1)),
                        None => a.text.clone(),
                    })
                    .collect();
                let body: String = items.iter().map(|i| format!("{pad}{i},\n")).collect();
                format!("{callee}{open}\n{body}{end}{close}")
            }
        }
    }
}

/// What follows the target of an assignment at `indent` (`: annotation = value`, or
/// `: annotation`), laid out as `ruff format` does: on one line; else the call ending the
/// first line with its arguments below, when that line fits; else the value in parentheses
/// on its own lines; else the annotation broken (a union or subscript; a name only without
/// a value); else the call's arguments below an overlong line.
pub(super) fn assignment(
    indent: usize,
    target: &str,
    ann: &AnnShape,
    value: Option<&Rhs>,
) -> String {
    let lhs = indent + target.chars().count() + 2;
    let ann_flat = ann.flat();
    let ann_width = ann_flat.chars().count();
    let Some(value) = value else {
        if lhs + ann_width <= lit::WIDTH {
            return format!(": {ann_flat}");
        }
        return format!(": {}", ann.broken(indent));
    };
    let flat = value.flat();
    let width = flat.chars().count();
    let before = lhs + ann_width + 3;
    if before + width <= lit::WIDTH {
        return format!(": {ann_flat} = {flat}");
    }
    if let Rhs::Call { callee, open, .. } = value {
        if before + callee.chars().count() + open.len() <= lit::WIDTH {
            return format!(": {ann_flat} = {}", value.broken(indent));
        }
    }
    let fits_alone = indent + 4 + width <= lit::WIDTH;
    if before < lit::WIDTH && (fits_alone || matches!(value, Rhs::Call { .. })) {
        let pad = " ".repeat(indent + 4);
        let inner = if fits_alone {
            flat.clone()
        } else {
            value.broken(indent + 4)
        };
        return format!(": {ann_flat} = (\n{pad}{inner}\n{})", " ".repeat(indent));
    }
    if !matches!(ann, AnnShape::Atom(_)) {
        let broken = ann.broken(indent);
        let inner = if indent + 4 + width <= lit::WIDTH {
            flat
        } else {
            value.broken(indent)
        };
        return format!(": {broken} = {inner}");
    }
    format!(": {ann_flat} = {}", value.broken(indent))
}

pub(super) fn top_level_alternation(src: &str) -> bool {
    let mut depth = 0i32;
    let mut in_class = false;
    let mut esc = false;
    for c in src.chars() {
        if esc {
            esc = false;
            continue;
        }
        match c {
            '\\' => esc = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth -= 1,
            '|' if !in_class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Distinct annotations, in order (`str | str` is `str`).
pub(super) fn distinct(anns: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in anns {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// One `Literal[…]` for the literal members of a union, where the first one was (ruff's
/// PYI030: `Literal["a"] | Literal["b"]` is `Literal["a", "b"]`).
pub(super) fn merge_literals(anns: Vec<String>) -> Vec<String> {
    let inner = |a: &str| {
        a.strip_prefix("Literal[")
            .and_then(|a| a.strip_suffix(']'))
            .map(str::to_string)
    };
    let values: Vec<String> = anns.iter().filter_map(|a| inner(a)).collect();
    if values.len() < 2 {
        return anns;
    }
    let mut merged = Some(format!("Literal[{}]", values.join(", ")));
    anns.into_iter()
        .filter_map(|a| {
            if inner(&a).is_some() {
                merged.take()
            } else {
                Some(a)
            }
        })
        .collect()
}

/// `(head, inner)` when an annotation is one subscript, `head[inner]`.
pub(super) fn subscript(value: &str) -> Option<(&str, &str)> {
    let open = value.find('[')?;
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in value.char_indices().skip_while(|(i, _)| *i < open) {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return (i == value.len() - 1).then(|| (&value[..open], &value[open + 1..i]));
                }
            }
            (None, _) => {}
        }
    }
    None
}

/// The items of a subscript's inside, split at its top-level commas.
pub(super) fn split_top(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut cur = String::new();
    for c in inner.chars() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(' | '{') => depth += 1,
            (None, ']' | ')' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            (None, _) => {}
        }
        cur.push(c);
    }
    items.push(cur.trim().to_string());
    items
}

/// A subscript `head[inner]` broken inside its brackets for a line indented by `indent`:
/// the inside on one line below, else one item per line.
pub(super) fn broken_subscript(head: &str, inner: &str, indent: usize) -> String {
    let items = split_top(inner);
    let pad = " ".repeat(indent + 4);
    let end = " ".repeat(indent);
    // An item too long for its own line breaks too.
    let item = |i: &str, tail: usize| match subscript(i) {
        Some((h, n)) if indent + 4 + i.chars().count() + tail > lit::WIDTH => {
            broken_subscript(h, n, indent + 4)
        }
        _ => i.to_string(),
    };
    let one = items.join(", ");
    if items.len() == 1 || indent + 4 + one.chars().count() <= lit::WIDTH {
        let body = if items.len() == 1 {
            item(&items[0], 0)
        } else {
            one
        };
        return format!("{head}[\n{pad}{body}\n{end}]");
    }
    let body: String = items
        .iter()
        .map(|i| format!("{pad}{},\n", item(i, 1)))
        .collect();
    format!("{head}[\n{body}{end}]")
}

/// An operand of a union broken over lines, on a line indented by `indent` after `lead`
/// characters: a subscript too long for the line breaks inside its brackets.
pub(super) fn union_operand(p: &str, indent: usize, lead: usize) -> String {
    match subscript(p) {
        Some((head, inner)) if lead + p.chars().count() > lit::WIDTH => {
            broken_subscript(head, inner, indent)
        }
        _ => p.to_string(),
    }
}
