//! TypeScript: string literals, `//` comments and `/** … */` doc comments.

use std::fmt;

use super::{comment_text, is_invisible, is_line_break, split_lines};

/// A string literal, quotes included, as prettier prints it; built only by [`string`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lit(String);

/// Text that is safe on one line of a `//` comment or a `/** … */` comment; built only by
/// [`line`], [`doc`] and [`Line::blank`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line(String);

impl Lit {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Line {
    pub fn blank() -> Line {
        Line(String::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Lit> for String {
    fn from(l: Lit) -> String {
        l.0
    }
}

/// A string literal holding exactly `s`, quoted as prettier prints it (double quotes unless the
/// text holds more double than single quotes). Backslashes, the quote, every line terminator
/// (U+2028 and U+2029 too, legal since ES2019 but escaped anyway), controls, bidi and invisible
/// characters are escaped; `${` and backticks need nothing in a quoted literal.
pub fn string(s: &str) -> Lit {
    let doubles = s.matches('"').count();
    let singles = s.matches('\'').count();
    let q = if doubles > singles { '\'' } else { '"' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if is_invisible(c) || is_line_break(c) => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(q);
    Lit(out)
}

/// Comment text on one line: no line terminator, no `*/` (`*\/`), no compiler directive
/// (`@ts-nocheck`, `@ts-ignore`, … become `\@ts-…`, TSDoc's escape), controls and invisible
/// characters as visible escapes.
pub fn line(text: &str) -> Line {
    let escaped = comment_text(text)
        .replace("*/", "*\\/")
        .replace("@ts-", "\\@ts-")
        .replace("@jsx", "\\@jsx");
    Line(escaped)
}

/// The lines of a `/** … */` (or `//`) comment for a description: split at every line
/// terminator, each line escaped as by [`line`].
pub fn doc(text: &str) -> Vec<Line> {
    if text.is_empty() {
        return Vec::new();
    }
    split_lines(text).iter().map(|l| line(l)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_comments() {
        assert_eq!(string("a\"b").as_str(), "'a\"b'");
        assert_eq!(string("it's").as_str(), "\"it's\"");
        assert_eq!(
            string("\u{2028}\0\u{202e}${`").as_str(),
            "\"\\u2028\\u0000\\u202e${`\""
        );
        assert_eq!(line("a */ b\u{2028}c").as_str(), "a *\\/ b\\u{2028}c");
        assert_eq!(line("@ts-nocheck").as_str(), "\\@ts-nocheck");
        assert_eq!(doc("a\r\nb\u{2029}c\n"), [line("a"), line("b"), line("c")]);
    }
}
