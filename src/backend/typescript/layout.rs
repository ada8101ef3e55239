//! Type expressions, and how prettier breaks them over lines when they do not fit.
//!
//! The generator builds a [`TExpr`] for every type annotation it writes; [`lay`] returns the
//! lines prettier would print for it in a given position (a property, an index signature, a
//! type alias or a union member), so the emitted files are prettier-clean as written.

use super::{fits, is_ident};

/// A TypeScript type expression, as far as the generator writes them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum TExpr {
    /// A name, keyword or literal type: never broken.
    Atom(String),
    /// `A | B | …`, members flattened (no member is itself a union).
    Union(Vec<TExpr>),
    /// `T[]`, or `(A | B)[]`.
    Array(Box<TExpr>),
    /// `{ [key: string]: T }`.
    Map(Box<TExpr>),
}

/// Where a type expression stands: decides how it breaks when it does not fit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Slot {
    /// `key: T;` in an interface.
    Property,
    /// `[key: string]: T;` in an interface or an object type.
    Index,
    /// `export type X = T;`.
    Alias,
    /// `| T` in a union written one member per line.
    Member,
}

impl TExpr {
    pub fn atom(s: impl Into<String>) -> TExpr {
        TExpr::Atom(s.into())
    }

    /// The union of `members`, unions among them flattened and repeated members dropped; a
    /// single member stands for itself.
    pub fn union(members: impl IntoIterator<Item = TExpr>) -> TExpr {
        let mut out: Vec<TExpr> = Vec::new();
        let mut seen: std::collections::HashSet<TExpr> = std::collections::HashSet::new();
        for m in members {
            let parts = match m {
                TExpr::Union(ms) => ms,
                m => vec![m],
            };
            for p in parts {
                if seen.insert(p.clone()) {
                    out.push(p);
                }
            }
        }
        if out.len() == 1 {
            out.pop().expect("one member")
        } else {
            TExpr::Union(out)
        }
    }

    /// Whether the expression names `atom` (as a whole name, anywhere inside).
    pub fn has_atom(&self, atom: &str) -> bool {
        match self {
            TExpr::Atom(s) => s == atom,
            TExpr::Union(ms) => ms.iter().any(|m| m.has_atom(atom)),
            TExpr::Array(t) | TExpr::Map(t) => t.has_atom(atom),
        }
    }

    /// The expression on one line.
    pub fn flat(&self) -> String {
        match self {
            TExpr::Atom(s) => s.clone(),
            TExpr::Union(ms) => ms.iter().map(TExpr::flat).collect::<Vec<_>>().join(" | "),
            TExpr::Array(t) => match **t {
                TExpr::Union(_) => format!("({})[]", t.flat()),
                _ => format!("{}[]", t.flat()),
            },
            TExpr::Map(t) => format!("{{ [key: string]: {} }}", t.flat()),
        }
    }

    /// `X | null` (or `null | X`) with `X` a name or an object type: prettier keeps the union
    /// on `X`'s line and breaks `X` instead. The member, and whether `null` comes first.
    fn hugged(&self) -> Option<(&TExpr, bool)> {
        let TExpr::Union(ms) = self else { return None };
        let null = TExpr::atom("null");
        let (m, first) = match ms.as_slice() {
            [m, n] if *n == null => (m, false),
            [n, m] if *n == null => (m, true),
            _ => return None,
        };
        match m {
            TExpr::Map(_) => Some((m, first)),
            TExpr::Atom(s) if is_ident(s) => Some((m, first)),
            _ => None,
        }
    }

    /// The text of a breakable expression up to its first break.
    fn opening(&self) -> &'static str {
        match self {
            TExpr::Union(_) => match self.hugged() {
                Some((_, true)) => "null | {",
                Some((m, false)) => m.opening(),
                None => "",
            },
            TExpr::Map(_) => "{",
            TExpr::Array(t) if matches!(**t, TExpr::Union(_)) => "(",
            TExpr::Array(t) => t.opening(),
            TExpr::Atom(_) => "",
        }
    }

    /// Whether prettier has a place to break it.
    fn breakable(&self) -> bool {
        match self {
            TExpr::Atom(_) => false,
            TExpr::Map(_) => true,
            TExpr::Array(t) => matches!(**t, TExpr::Union(_)) || t.breakable(),
            TExpr::Union(_) => self.hugged().is_none_or(|(m, _)| m.breakable()),
        }
    }
}

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// The lines of `head`, `e` and `tail`: `head` is everything before the type on its first line
/// (indentation included), `indent` the indentation of the construct the type belongs to.
pub(crate) fn lay(e: &TExpr, slot: Slot, head: &str, indent: usize, tail: &str) -> Vec<String> {
    let mut out = Vec::new();
    lay_into(e, slot, head, indent, tail, &mut out);
    out
}

fn lay_into(e: &TExpr, slot: Slot, head: &str, indent: usize, tail: &str, out: &mut Vec<String>) {
    let line = format!("{head}{}{tail}", e.flat());
    if fits(0, &line) {
        out.push(line);
        return;
    }
    // After `=` prettier's "fluid" layout: the type starts on the line only when the text up
    // to its first break fits there; otherwise it goes to the next line, indented, and breaks
    // from there (a union then leaves the line after `=` empty).
    if slot == Slot::Alias && e.breakable() && !fits(0, &format!("{head}{}", e.opening())) {
        out.push(head.trim_end().to_string());
        lay_into(
            e,
            Slot::Property,
            &spaces(indent + 2),
            indent + 2,
            tail,
            out,
        );
        return;
    }
    if !e.breakable() {
        match slot {
            // The only group left to break is the key's brackets.
            Slot::Index => {
                let ind = spaces(indent);
                out.push(format!("{ind}["));
                out.push(format!("{ind}  key: string"));
                out.push(format!("{ind}]: {}{tail}", e.flat()));
            }
            // `=` breaks, the type goes on the next line.
            Slot::Alias => {
                out.push(head.trim_end().to_string());
                out.push(format!("{}{}{tail}", spaces(indent + 2), e.flat()));
            }
            Slot::Property | Slot::Member => out.push(line),
        }
        return;
    }
    match e {
        TExpr::Union(ms) => match e.hugged() {
            Some((h, false)) => lay_into(h, slot, head, indent, &format!(" | null{tail}"), out),
            Some((h, true)) => lay_into(h, slot, &format!("{head}null | "), indent, tail, out),
            None => {
                out.push(head.trim_end().to_string());
                members(ms, indent + 2, tail, out);
            }
        },
        TExpr::Map(v) => {
            out.push(format!("{head}{{"));
            lay_into(
                v,
                Slot::Index,
                &format!("{}[key: string]: ", spaces(indent + 2)),
                indent + 2,
                ";",
                out,
            );
            out.push(format!("{}}}{tail}", spaces(indent)));
        }
        TExpr::Array(t) => match &**t {
            TExpr::Union(ms) => {
                out.push(format!("{head}("));
                members(ms, indent + 2, "", out);
                out.push(format!("{})[]{tail}", spaces(indent)));
            }
            t => lay_into(t, slot, head, indent, &format!("[]{tail}"), out),
        },
        TExpr::Atom(_) => unreachable!("atoms do not break"),
    }
}

/// Union members one per line at `at`, each `| `-prefixed; the last one followed by `tail`.
fn members(ms: &[TExpr], at: usize, tail: &str, out: &mut Vec<String>) {
    for (i, m) in ms.iter().enumerate() {
        let t = if i + 1 == ms.len() { tail } else { "" };
        lay_into(
            m,
            Slot::Member,
            &format!("{}| ", spaces(at)),
            at + 2,
            t,
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> TExpr {
        TExpr::atom(s)
    }

    const LONG: &str = "Aiconfig10PromptsItemMetadataModelXXXXXXXXXXXXXXXXXXXXXXXXXX";

    #[test]
    fn short_types_stay_on_one_line() {
        let e = TExpr::union([a("A"), a("null")]);
        assert_eq!(
            lay(&e, Slot::Property, "  x?: ", 2, ";"),
            ["  x?: A | null;"]
        );
        assert_eq!(TExpr::Array(Box::new(e)).flat(), "(A | null)[]");
    }

    #[test]
    fn unions_break_one_member_per_line() {
        let name = &LONG[..56];
        let e = TExpr::union([a("JsonValue"), TExpr::Map(Box::new(a(name)))]);
        assert_eq!(
            lay(&e, Slot::Index, "  [key: string]: ", 2, ";"),
            [
                "  [key: string]:",
                "    | JsonValue",
                "    | {",
                &format!("        [key: string]: {name};"),
                "      };"
            ]
        );
    }

    #[test]
    fn hugged_and_unbreakable() {
        let e = TExpr::union([a(&format!("{LONG}XX")), a("null")]);
        assert_eq!(
            lay(&e, Slot::Index, "  [key: string]: ", 2, ";"),
            ["  [", "    key: string", &format!("  ]: {LONG}XX | null;")]
        );
        assert_eq!(
            lay(&e, Slot::Alias, "export type A = ", 0, ";"),
            ["export type A =", &format!("  {LONG}XX | null;")]
        );
        let m = TExpr::union([TExpr::Map(Box::new(a(LONG))), a("null")]);
        assert_eq!(
            lay(&m, Slot::Property, "  abc?: ", 2, ";"),
            [
                "  abc?: {",
                &format!("    [key: string]: {LONG};"),
                "  } | null;"
            ]
        );
    }

    #[test]
    fn long_alias_heads_break_after_the_operator() {
        let head =
            "export type StandardInstrumentExtendedRouterOverheadAttributesWithRouterSelector = ";
        let u = TExpr::union([a("null"), a("boolean"), a(&format!("{LONG}Variant2"))]);
        assert_eq!(
            lay(&u, Slot::Alias, head, 0, ";"),
            [
                head.trim_end(),
                "",
                "    | null",
                "    | boolean",
                &format!("    | {LONG}Variant2;")
            ]
        );
        let m = TExpr::Map(Box::new(a("string")));
        assert_eq!(
            lay(&m, Slot::Alias, head, 0, ";"),
            [head.trim_end(), "  { [key: string]: string };"]
        );
    }

    #[test]
    fn arrays_of_unions_break_inside_the_parentheses() {
        let e = TExpr::Array(Box::new(TExpr::union([a(LONG), a("string"), a("number")])));
        assert_eq!(
            lay(&e, Slot::Alias, "export type Y = ", 0, ";"),
            [
                "export type Y = (",
                &format!("  | {LONG}"),
                "  | string",
                "  | number",
                ")[];"
            ]
        );
    }
}

/// A literal expression (a JSON value, or a list of names), as far as the generator writes them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Lit {
    /// A string literal, printed.
    Str(String),
    /// A number literal, printed.
    Num(String),
    /// `null`, `true`, `false` or a name.
    Word(String),
    Array(Vec<Lit>),
    /// Properties with their keys printed.
    Object(Vec<(String, Lit)>),
}

/// What stands before a literal on its first line, for deciding where it may break.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Before {
    /// `x = ` or `key: `: a long string or number goes to the next line, indented.
    Operator,
    /// `k: ` with a key shorter than five columns: prettier never breaks after it.
    ShortKey,
    /// Indentation, `(` or `[`: nothing to break.
    Nothing,
}

impl Lit {
    pub fn flat(&self) -> String {
        match self {
            Lit::Str(s) | Lit::Num(s) | Lit::Word(s) => s.clone(),
            Lit::Array(items) => format!(
                "[{}]",
                items.iter().map(Lit::flat).collect::<Vec<_>>().join(", ")
            ),
            Lit::Object(props) if props.is_empty() => "{}".into(),
            Lit::Object(props) => format!(
                "{{ {} }}",
                props
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", v.flat()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Number of elements or properties.
    fn len(&self) -> Option<usize> {
        match self {
            Lit::Array(items) => Some(items.len()),
            Lit::Object(props) => Some(props.len()),
            _ => None,
        }
    }

    /// prettier breaks an array of two or more objects (or arrays) with more than one entry
    /// each even when it fits, and every literal around such an array.
    fn must_break(&self) -> bool {
        let items = match self {
            Lit::Array(items) => items,
            Lit::Object(props) => return props.iter().any(|(_, v)| v.must_break()),
            _ => return false,
        };
        items.iter().any(Lit::must_break)
            || items.len() > 1
                && (items
                    .iter()
                    .all(|i| matches!(i, Lit::Object(_)) && i.len() > Some(1))
                    || items
                        .iter()
                        .all(|i| matches!(i, Lit::Array(_)) && i.len() > Some(1)))
    }
}

/// The lines of `head`, `lit` and `tail`, laid out as prettier does; `indent` is the
/// indentation of the statement or entry the literal belongs to.
pub(crate) fn lay_lit(
    lit: &Lit,
    before: Before,
    head: &str,
    indent: usize,
    tail: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    lay_lit_into(lit, before, head, indent, tail, &mut out);
    out
}

fn lay_lit_into(
    lit: &Lit,
    before: Before,
    head: &str,
    indent: usize,
    tail: &str,
    out: &mut Vec<String>,
) {
    let line = format!("{head}{}{tail}", lit.flat());
    if fits(0, &line) && !lit.must_break() {
        out.push(line);
        return;
    }
    let inner = spaces(indent + 2);
    let open = match lit {
        Lit::Array(items) if !items.is_empty() => "[",
        Lit::Object(props) if !props.is_empty() => "{",
        _ => "",
    };
    // prettier's "fluid" layout: when even the opening bracket does not fit after the
    // operator, the literal starts on the next line.
    if !open.is_empty() && before != Before::Nothing && !fits(0, &format!("{head}{open}")) {
        out.push(head.trim_end().to_string());
        lay_lit_into(lit, Before::Nothing, &inner, indent + 2, tail, out);
        return;
    }
    match lit {
        Lit::Array(items) if !items.is_empty() => {
            out.push(format!("{head}["));
            if items.iter().all(|i| matches!(i, Lit::Num(_))) {
                // Numbers fill the lines.
                let mut cur = String::new();
                for i in items {
                    let word = format!("{},", i.flat());
                    if !cur.is_empty() && !fits(0, &format!("{inner}{cur} {word}")) {
                        out.push(format!("{inner}{cur}"));
                        cur.clear();
                    }
                    if !cur.is_empty() {
                        cur.push(' ');
                    }
                    cur.push_str(&word);
                }
                out.push(format!("{inner}{cur}"));
            } else {
                for i in items {
                    lay_lit_into(i, Before::Nothing, &inner, indent + 2, ",", out);
                }
            }
            out.push(format!("{}]{tail}", spaces(indent)));
        }
        Lit::Object(props) if !props.is_empty() => {
            out.push(format!("{head}{{"));
            for (k, v) in props {
                // The width of the key decides whether a long value may go to the next line.
                let before = if k.chars().count() < 5 {
                    Before::ShortKey
                } else {
                    Before::Operator
                };
                lay_lit_into(v, before, &format!("{inner}{k}: "), indent + 2, ",", out);
            }
            out.push(format!("{}}}{tail}", spaces(indent)));
        }
        _ if before == Before::Operator => {
            out.push(head.trim_end().to_string());
            out.push(format!("{}{}{tail}", spaces(indent + 2), lit.flat()));
        }
        _ => out.push(line),
    }
}

#[cfg(test)]
mod lit_tests {
    use super::*;

    fn s(x: &str) -> Lit {
        Lit::Str(format!("\"{x}\""))
    }

    fn n(x: i64) -> Lit {
        Lit::Num(x.to_string())
    }

    #[test]
    fn arrays_of_objects_break() {
        let o = |a, b| Lit::Object(vec![("a".into(), n(a)), ("b".into(), n(b))]);
        let l = Lit::Array(vec![o(1, 2), o(3, 4)]);
        assert_eq!(
            lay_lit(&l, Before::Operator, "x = ", 0, ";"),
            ["x = [", "  { a: 1, b: 2 },", "  { a: 3, b: 4 },", "];"]
        );
        let one = Lit::Array(vec![Lit::Object(vec![("a".into(), n(1))]), o(3, 4)]);
        assert_eq!(
            lay_lit(&one, Before::Operator, "x = ", 0, ";"),
            ["x = [{ a: 1 }, { a: 3, b: 4 }];"]
        );
    }

    #[test]
    fn numbers_fill_lines() {
        let l = Lit::Array((1..=26).map(n).collect());
        assert_eq!(
            lay_lit(&l, Before::Operator, "out[\"d\"] = ", 0, ";"),
            [
                "out[\"d\"] = [",
                "  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,",
                "  23, 24, 25, 26,",
                "];"
            ]
        );
    }

    #[test]
    fn long_strings_after_keys() {
        let long = "a very long string value that goes on and on and on and on and on";
        let o = Lit::Object(vec![("some_longer_key".into(), s(long))]);
        assert_eq!(
            lay_lit(&o, Before::Operator, "out[\"e\"] = ", 0, ";"),
            [
                "out[\"e\"] = {",
                "  some_longer_key:",
                &format!("    \"{long}\","),
                "};"
            ]
        );
        let o = Lit::Object(vec![("k".into(), s(&format!("{long} and on")))]);
        assert_eq!(
            lay_lit(&o, Before::Operator, "out[\"e\"] = ", 0, ";"),
            ["out[\"e\"] = {", &format!("  k: \"{long} and on\","), "};"]
        );
    }
}
