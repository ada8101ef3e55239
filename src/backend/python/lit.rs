//! Python literals laid out the way `ruff format` leaves them, and ECMA-262 → Python `re`
//! pattern translation. Only literal text is produced here; code structure lives in templates.

use serde_json::Value;

use crate::backend::escape;

/// The line width `ruff format` uses by default.
pub const WIDTH: usize = 88;

/// A Python string literal (see [`escape::python::string`]).
pub fn string(s: &str) -> String {
    escape::python::string(s).into()
}

/// A regular-expression literal (see [`escape::python::regex`]).
pub fn regex(s: &str) -> String {
    escape::python::regex(s).into()
}

/// A number as Python writes it: integral values of integer JSON numbers stay integers.
pub fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        float(n.as_f64().unwrap_or(0.0))
    }
}

/// A float literal (`1.0`, `0.5`, `1e-07`).
pub fn float(f: f64) -> String {
    if f.is_nan() {
        return "float(\"nan\")".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "float(\"inf\")".into()
        } else {
            "-float(\"inf\")".into()
        };
    }
    format!("{f:?}").to_lowercase()
}

/// A bound for a numeric comparison: integral values print as integers (`0`, `100`).
pub fn bound(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        float(f)
    }
}

/// An integral bound as an exact Python integer (`9223372036854775808`, not `9.2e18`); `None`
/// when it is not finite.
pub fn int_bound(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let s = format!("{f:.0}");
    Some(if s == "-0" { "0".into() } else { s })
}

/// A JSON value as a Python expression on one line.
pub fn flat(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => number(n),
        Value::String(s) => string(s),
        Value::Array(a) => format!("[{}]", a.iter().map(flat).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", string(k), flat(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A JSON value as a Python expression starting after `lead` characters on a line indented by
/// `indent` and followed by `tail` characters: on one line when it fits, otherwise exploded
/// with magic trailing commas, as `ruff format` does.
pub fn value(v: &Value, indent: usize, lead: usize, tail: usize) -> String {
    let one = flat(v);
    if indent + lead + one.chars().count() + tail <= WIDTH {
        return one;
    }
    let inner = indent + 4;
    let pad = " ".repeat(inner);
    match v {
        Value::Array(a) if !a.is_empty() => {
            let items: Vec<String> = a
                .iter()
                .map(|x| format!("{pad}{},\n", value(x, inner, 0, 1)))
                .collect();
            format!("[\n{}{}]", items.concat(), " ".repeat(indent))
        }
        Value::Object(o) if !o.is_empty() => {
            let items: Vec<String> = o
                .iter()
                .map(|(k, x)| {
                    let key = string(k);
                    let lead = key.chars().count() + 2;
                    format!("{pad}{key}: {},\n", value(x, inner, lead, 1))
                })
                .collect();
            format!("{{\n{}{}}}", items.concat(), " ".repeat(indent))
        }
        _ => one,
    }
}

/// A sequence of already-formatted items between `open` and `close`, laid out like a
/// collection literal by `ruff format`: on one line when it fits, otherwise one item per line
/// with a trailing comma.
pub fn seq(
    items: &[String],
    open: &str,
    close: &str,
    indent: usize,
    lead: usize,
    tail: usize,
) -> String {
    let mut one = items.join(", ");
    if items.len() == 1 && open == "(" {
        one.push(',');
    }
    let one = format!("{open}{one}{close}");
    if indent + lead + one.chars().count() + tail <= WIDTH && !one.contains('\n') {
        return one;
    }
    exploded(items, open, close, indent)
}

fn exploded(items: &[String], open: &str, close: &str, indent: usize) -> String {
    let pad = " ".repeat(indent + 4);
    let body: String = items.iter().map(|i| format!("{pad}{i},\n")).collect();
    format!("{open}\n{body}{}{close}", " ".repeat(indent))
}

/// Arguments of a call or a subscript, laid out like `ruff format`: on one line when it fits,
/// else all on one indented line when that fits, else one per line with a trailing comma.
pub fn args(
    items: &[String],
    open: &str,
    close: &str,
    indent: usize,
    lead: usize,
    tail: usize,
) -> String {
    let joined = items.join(", ");
    let one = format!("{open}{joined}{close}");
    if indent + lead + one.chars().count() + tail <= WIDTH && !one.contains('\n') {
        return one;
    }
    if items.len() == 1 || (indent + 4 + joined.chars().count() <= WIDTH && !joined.contains('\n'))
    {
        return format!(
            "{open}\n{}{joined}\n{}{close}",
            " ".repeat(indent + 4),
            " ".repeat(indent)
        );
    }
    exploded(items, open, close, indent)
}

/// A `from module import a, b` statement, wrapped like `ruff format`.
pub fn import(module: &str, names: &[String]) -> String {
    let lead = format!("from {module} import ");
    let one = names.join(", ");
    if lead.len() + one.len() <= WIDTH {
        return format!("{lead}{one}");
    }
    format!("{lead}{}", exploded(names, "(", ")", 0))
}

/// The ECMA-262 whitespace set (`\s`), as the body of a character class.
const ECMA_SPACE: &str =
    "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/// ECMA-262 line terminators, which `.` does not match.
const ECMA_LINE: &str = "\\n\\r\\u2028\\u2029";

/// Translates an ECMA-262 (`u` flag) pattern to Python `re` syntax with the same meaning:
/// `$` only at the very end (`\Z`), ASCII `\d`/`\w`/`\b`, the ECMA whitespace set for
/// `\s`/`\S`, `.` not matching line terminators, named groups, `\u{…}` escapes, and literal
/// `[` inside classes escaped (Python would warn about nested sets).
pub fn translate_pattern(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::new();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                let e = chars[i + 1];
                i += 2;
                match (e, in_class) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('d', true) => out.push_str("0-9"),
                    ('D', false) => out.push_str("[^0-9]"),
                    ('w', false) => out.push_str("[A-Za-z0-9_]"),
                    ('w', true) => out.push_str("A-Za-z0-9_"),
                    ('W', false) => out.push_str("[^A-Za-z0-9_]"),
                    ('s', false) => out.push_str(&format!("[{ECMA_SPACE}]")),
                    ('s', true) => out.push_str(ECMA_SPACE),
                    ('S', false) => out.push_str(&format!("[^{ECMA_SPACE}]")),
                    ('b', false) => out.push_str(
                        r"(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))",
                    ),
                    ('B', false) => out.push_str(
                        r"(?:(?<=[A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<![A-Za-z0-9_])(?![A-Za-z0-9_]))",
                    ),
                    ('b', true) => out.push_str("\\x08"),
                    ('u', _) if chars.get(i) == Some(&'{') => {
                        let end = chars[i..]
                            .iter()
                            .position(|&c| c == '}')
                            .map(|p| p + i)
                            .unwrap_or(chars.len());
                        let hex: String = chars[i + 1..end].iter().collect();
                        let cp = u32::from_str_radix(&hex, 16).unwrap_or(0xfffd);
                        out.push_str(&format!("\\U{cp:08x}"));
                        i = end + 1;
                    }
                    ('k', false) if chars.get(i) == Some(&'<') => {
                        let end = chars[i..]
                            .iter()
                            .position(|&c| c == '>')
                            .map(|p| p + i)
                            .unwrap_or(chars.len());
                        let name: String = chars[i + 1..end].iter().collect();
                        out.push_str(&format!("(?P={name})"));
                        i = end + 1;
                    }
                    ('c', _) if chars.get(i).is_some_and(|c| c.is_ascii_alphabetic()) => {
                        out.push_str(&format!("\\x{:02x}", (chars[i] as u32) % 32));
                        i += 1;
                    }
                    ('/', _) => out.push('/'),
                    ('-', _) => out.push_str("\\-"),
                    (e, _) => {
                        out.push('\\');
                        out.push(e);
                    }
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    // `[]` matches nothing and `[^]` anything in ECMA-262.
                    let negated = out.ends_with('^');
                    out.truncate(out.len() - if negated { 2 } else { 1 });
                    out.push_str(if negated { "[\\s\\S]" } else { "(?!)" });
                    in_class = false;
                    i += 2;
                    continue;
                }
            }
            '[' => out.push_str("\\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '$' if !in_class => out.push_str("\\Z"),
            '.' if !in_class => out.push_str(&format!("[^{ECMA_LINE}]")),
            '(' if !in_class
                && chars.get(i + 1) == Some(&'?')
                && chars.get(i + 2) == Some(&'<')
                && !matches!(chars.get(i + 3), Some('=') | Some('!')) =>
            {
                out.push_str("(?P<");
                i += 3;
                continue;
            }
            '&' | '~' | '|' if in_class && chars.get(i + 1) == Some(&c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert_eq!(
            translate_pattern("^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}$"),
            "^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}\\Z"
        );
        assert_eq!(translate_pattern(r"^\d+\.\d$"), r"^[0-9]+\.[0-9]\Z");
        assert_eq!(translate_pattern(r"[\d.]"), r"[0-9.]");
        assert_eq!(translate_pattern(r"(?<y>a)\k<y>"), r"(?P<y>a)(?P=y)");
        assert_eq!(translate_pattern(r"a.b"), "a[^\\n\\r\\u2028\\u2029]b");
    }

    #[test]
    fn strings() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(bound(0.0), "0");
        assert_eq!(bound(0.5), "0.5");
        assert_eq!(
            int_bound(9.223372036854776e18).as_deref(),
            Some("9223372036854775808")
        );
        assert_eq!(int_bound(-0.0).as_deref(), Some("0"));
        assert_eq!(int_bound(f64::INFINITY), None);
    }
}
