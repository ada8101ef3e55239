//! Python: string literals, `#` comments and docstrings.

use std::fmt;

use super::{comment_text, is_invisible, is_line_break};

/// A string literal, quotes included, as `ruff format` prints it; built only by [`string`]
/// and [`regex`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lit(String);

/// Text that is safe on one `#` comment line; built only by [`line`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line(String);

/// The body of a `"""` docstring, laid out for its indentation; built only by [`docstring`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Docstring(String);

macro_rules! text_type {
    ($t:ty) => {
        impl $t {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<$t> for String {
            fn from(l: $t) -> String {
                l.0
            }
        }
    };
}

text_type!(Lit);
text_type!(Line);
text_type!(Docstring);

/// The escape of a character in a Python string: `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
fn hex_escape(c: char) -> String {
    match c as u32 {
        n if n < 0x100 => format!("\\x{n:02x}"),
        n if n < 0x10000 => format!("\\u{n:04x}"),
        n => format!("\\U{n:08x}"),
    }
}

/// A string literal holding exactly `s`, quoted the way `ruff format` prefers (double quotes
/// unless the text holds more double than single quotes). Backslashes, the quote, line breaks,
/// NUL and other controls, bidi and invisible characters are escaped.
pub fn string(s: &str) -> Lit {
    let dq = s.matches('"').count();
    let sq = s.matches('\'').count();
    let quote = if dq > sq { '\'' } else { '"' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_invisible(c) || is_line_break(c) => out.push_str(&hex_escape(c)),
            c => out.push(c),
        }
    }
    out.push(quote);
    Lit(out)
}

/// A regular-expression literal: a raw string when that is possible and shorter.
pub fn regex(s: &str) -> Lit {
    let raw_ok = !s.contains('"')
        && !s.ends_with('\\')
        && s.chars().all(|c| !is_invisible(c) && !is_line_break(c));
    if raw_ok && s.contains('\\') {
        Lit(format!("r\"{s}\""))
    } else {
        string(s)
    }
}

/// Text for one `#` comment line: line breaks, controls (form feed and NUL too) and invisible
/// characters as visible escapes.
pub fn line(text: &str) -> Line {
    Line(comment_text(text))
}

/// A fragment of text inside a docstring, on one line (a value named in a docstring the
/// template writes): backslashes, quotes next to another quote, line breaks, controls and
/// invisible characters escaped.
pub fn doc_fragment(text: &str) -> Docstring {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let quote_run =
            c == '"' && (i > 0 && chars[i - 1] == '"' || chars.get(i + 1) == Some(&'"'));
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quote_run => out.push_str("\\\""),
            '\n' | '\t' => out.push_str(&hex_escape(c)),
            c if is_invisible(c) || is_line_break(c) => out.push_str(&hex_escape(c)),
            c => out.push(c),
        }
    }
    Docstring(out)
}

/// Docstring text for a `"""…"""` at `indent`: backslashes and `"""` escaped, controls, line
/// separators, bidi and invisible characters as escapes (the value is the same; ruff requires
/// them, PLE2510-PLE2515), and lines laid out as `ruff format` leaves them.
pub fn docstring(text: &str, indent: usize) -> Docstring {
    let t = text
        .trim()
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    let t: String = t
        .replace("\r\n", "\n")
        .chars()
        .map(|c| match c {
            '\x08' => "\\b".to_string(),
            '\r' => "\\r".to_string(),
            '\n' | '\t' => c.to_string(),
            c if is_invisible(c) || is_line_break(c) => hex_escape(c),
            c => c.to_string(),
        })
        .collect();
    let mut t: Vec<String> = t.split('\n').map(|l| l.trim_end().to_string()).collect();
    // As `ruff format` does: tabs in the indentation of the lines after the first are spaces
    // (tab stops every 8 columns of the source line), and their common indentation goes.
    for l in t.iter_mut().skip(1) {
        let body = l.trim_start_matches([' ', '\t']).to_string();
        let mut col = indent;
        for c in l.chars().take_while(|c| *c == ' ' || *c == '\t') {
            col = if c == '\t' {
                (col / 8 + 1) * 8
            } else {
                col + 1
            };
        }
        *l = format!("{}{body}", " ".repeat(col - indent));
    }
    let common = t
        .iter()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min();
    if let Some(n) = common.filter(|n| *n > 0) {
        for l in t.iter_mut().skip(1).filter(|l| !l.is_empty()) {
            l.drain(..n);
        }
    }
    // A docstring may not start with a fourth quote.
    if t.first().is_some_and(|l| l.starts_with('"')) {
        t[0].insert(0, ' ');
    }
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for (i, l) in t.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if !l.is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(l);
    }
    if t.len() > 1 {
        out.push('\n');
        out.push_str(&pad);
    } else if out.ends_with('"') {
        out.push(' ');
    }
    Docstring(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        assert_eq!(string("a\"b").as_str(), "'a\"b'");
        assert_eq!(string("it's").as_str(), "\"it's\"");
        assert_eq!(string("a\\b\n").as_str(), "\"a\\\\b\\n\"");
        assert_eq!(string("\0\u{2028}\u{85}").as_str(), "\"\\x00\\u2028\\x85\"");
        assert_eq!(regex("^\\d$").as_str(), "r\"^\\d$\"");
        assert_eq!(regex("^\\d\u{2028}$").as_str(), "\"^\\\\d\\u2028$\"");
    }

    #[test]
    fn comments_and_docstrings() {
        let payload = "x\n    return True\n__import__('os')\r\u{c}#";
        assert!(!line(payload).as_str().contains(['\n', '\r', '\u{c}']));
        let d = docstring("a \"\"\"b\"\"\" \\ \0 \u{2028}.", 0);
        assert_eq!(
            d.as_str(),
            "a \\\"\\\"\\\"b\\\"\\\"\\\" \\\\ \\x00 \\u2028."
        );
        assert_eq!(docstring("ends with \"", 4).as_str(), "ends with \" ");
        assert_eq!(
            docstring("a\n  b\n  c", 4).as_str(),
            "a\n    b\n    c\n    "
        );
    }
}
