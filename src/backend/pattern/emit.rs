//! Writes a parsed ECMA-262 pattern in RE2 syntax (which the Rust `regex` crate, `re2js` and
//! `google-re2` share), with ECMA-262's meaning spelled out: every class as explicit code point
//! ranges (ASCII `\d`/`\w`, the ECMA whitespace set, `.` without line terminators), every
//! character other than an ASCII letter or digit as `\x{…}`, groups without captures.

use super::parse::{Class, Node, MAX};

/// Where the translation runs: RE2 (re2js, google-re2) or the Rust `regex` crate, which
/// differ only in how an ASCII word boundary is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Re2,
    Rust,
}

/// RE2 rejects repetition counts above this (and nested counts whose product is above it).
const MAX_REPEAT: u64 = 1000;

/// The pattern in RE2 syntax, or why it has none (a backreference, a lookaround, a property
/// escape RE2 does not know, a lone surrogate, a count RE2 rejects).
pub fn emit(n: &Node, dialect: Dialect) -> Result<String, String> {
    let mut out = String::new();
    write(n, dialect, 1, &mut out)?;
    Ok(out)
}

fn write(n: &Node, d: Dialect, product: u64, out: &mut String) -> Result<(), String> {
    match n {
        Node::Empty => {}
        Node::Set(c) => class(c, out)?,
        Node::Start => out.push('^'),
        Node::End => out.push('$'),
        Node::WordBoundary(b) => out.push_str(match (b, d) {
            (true, Dialect::Re2) => "\\b",
            (false, Dialect::Re2) => "\\B",
            (true, Dialect::Rust) => "(?-u:\\b)",
            (false, Dialect::Rust) => "(?-u:\\B)",
        }),
        Node::Look(_) => return Err("a lookaround".into()),
        Node::Backref => return Err("a backreference".into()),
        Node::Concat(items) => {
            for i in items {
                if matches!(i, Node::Alt(_)) {
                    out.push_str("(?:");
                    write(i, d, product, out)?;
                    out.push(')');
                } else {
                    write(i, d, product, out)?;
                }
            }
        }
        Node::Alt(alts) => {
            for (i, a) in alts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write(a, d, product, out)?;
            }
        }
        Node::Repeat { node, min, max } => {
            let count = u64::from(max.unwrap_or(*min).max(*min));
            if count > MAX_REPEAT || product.saturating_mul(count.max(1)) > MAX_REPEAT {
                return Err("a repetition count above 1000".into());
            }
            if !consumes(node) {
                // A zero-width item repeated: once if it must occur, else not at all.
                if *min > 0 {
                    write(node, d, product, out)?;
                }
                return Ok(());
            }
            if matches!(**node, Node::Set(_)) {
                write(node, d, product, out)?;
            } else {
                out.push_str("(?:");
                write(node, d, product.saturating_mul(count.max(1)), out)?;
                out.push(')');
            }
            match (min, max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => out.push_str(&format!("{{{n},}}")),
                (n, Some(m)) if n == m => out.push_str(&format!("{{{n}}}")),
                (n, Some(m)) => out.push_str(&format!("{{{n},{m}}}")),
            }
        }
    }
    Ok(())
}

/// Whether `n` can consume a character.
fn consumes(n: &Node) -> bool {
    match n {
        Node::Set(_) | Node::Backref => true,
        Node::Concat(v) | Node::Alt(v) => v.iter().any(consumes),
        Node::Repeat { node, max, .. } => *max != Some(0) && consumes(node),
        _ => false,
    }
}

const SURROGATES: (u32, u32) = (0xd800, 0xdfff);

/// `ranges` without the surrogate code points, which Rust strings cannot hold and RE2 rejects.
fn scalar(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &(a, b) in ranges {
        if b < SURROGATES.0 || a > SURROGATES.1 {
            out.push((a, b));
            continue;
        }
        if a < SURROGATES.0 {
            out.push((a, SURROGATES.0 - 1));
        }
        if b > SURROGATES.1 {
            out.push((SURROGATES.1 + 1, b));
        }
    }
    out
}

fn class(c: &Class, out: &mut String) -> Result<(), String> {
    let ranges = scalar(&c.ranges);
    let props = c
        .props
        .iter()
        .map(|(neg, name)| property(name).map(|p| (*neg, p)))
        .collect::<Result<Vec<_>, _>>()?;
    if let ([(a, b)], [], false) = (ranges.as_slice(), props.as_slice(), c.negated) {
        if a == b {
            literal(*a, out);
            return Ok(());
        }
    }
    if ranges.is_empty() && props.is_empty() {
        // `[]` matches nothing and `[^]` anything.
        out.push_str(if c.negated {
            "[\\x{0}-\\x{10FFFF}]"
        } else {
            "[^\\x{0}-\\x{10FFFF}]"
        });
        return Ok(());
    }
    out.push('[');
    if c.negated {
        out.push('^');
    }
    for (a, b) in ranges {
        literal(a, out);
        if b > a {
            out.push('-');
            literal(b, out);
        }
    }
    for (neg, p) in props {
        out.push_str(if neg { "\\P{" } else { "\\p{" });
        out.push_str(&p);
        out.push('}');
    }
    out.push(']');
    Ok(())
}

fn literal(c: u32, out: &mut String) {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => out.push(ch),
        _ => out.push_str(&format!("\\x{{{:X}}}", c.min(MAX))),
    }
}

/// General categories: ECMA-262 accepts the long and the short names, RE2 the short ones.
const CATEGORIES: &[(&str, &str)] = &[
    ("Letter", "L"),
    ("Cased_Letter", "LC"),
    ("Uppercase_Letter", "Lu"),
    ("Lowercase_Letter", "Ll"),
    ("Titlecase_Letter", "Lt"),
    ("Modifier_Letter", "Lm"),
    ("Other_Letter", "Lo"),
    ("Mark", "M"),
    ("Nonspacing_Mark", "Mn"),
    ("Spacing_Mark", "Mc"),
    ("Enclosing_Mark", "Me"),
    ("Number", "N"),
    ("Decimal_Number", "Nd"),
    ("Letter_Number", "Nl"),
    ("Other_Number", "No"),
    ("Punctuation", "P"),
    ("Connector_Punctuation", "Pc"),
    ("Dash_Punctuation", "Pd"),
    ("Open_Punctuation", "Ps"),
    ("Close_Punctuation", "Pe"),
    ("Initial_Punctuation", "Pi"),
    ("Final_Punctuation", "Pf"),
    ("Other_Punctuation", "Po"),
    ("Symbol", "S"),
    ("Math_Symbol", "Sm"),
    ("Currency_Symbol", "Sc"),
    ("Modifier_Symbol", "Sk"),
    ("Other_Symbol", "So"),
    ("Separator", "Z"),
    ("Space_Separator", "Zs"),
    ("Line_Separator", "Zl"),
    ("Paragraph_Separator", "Zp"),
    ("Other", "C"),
    ("Control", "Cc"),
    ("Format", "Cf"),
    ("Surrogate", "Cs"),
    ("Private_Use", "Co"),
    ("Unassigned", "Cn"),
];

/// Scripts RE2 knows by the same long name ECMA-262 uses (the common ones; others keep the
/// backtracking engine).
const SCRIPTS: &[&str] = &[
    "Arabic",
    "Armenian",
    "Bengali",
    "Cyrillic",
    "Devanagari",
    "Georgian",
    "Greek",
    "Gujarati",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hebrew",
    "Hiragana",
    "Kannada",
    "Katakana",
    "Khmer",
    "Lao",
    "Latin",
    "Malayalam",
    "Myanmar",
    "Sinhala",
    "Tamil",
    "Telugu",
    "Thai",
    "Tibetan",
];

/// The RE2 name of an ECMA-262 property escape.
fn property(name: &str) -> Result<String, String> {
    let (key, value) = name.split_once('=').unwrap_or(("", name));
    let category = CATEGORIES
        .iter()
        .find(|(long, short)| *long == value || *short == value)
        .map(|(_, short)| short.to_string());
    let script = SCRIPTS.contains(&value).then(|| value.to_string());
    let found = match key {
        "" => category,
        "General_Category" | "gc" => category,
        "Script" | "sc" => script,
        _ => None,
    };
    // `LC` and `Cn` are not in every RE2 port.
    found
        .filter(|p| p != "LC" && p != "Cn")
        .ok_or_else(|| format!("the property escape \\p{{{name}}}"))
}
