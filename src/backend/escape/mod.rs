//! Escaping of schema text: the one place where text from a schema (names, descriptions,
//! titles, pointers, patterns, enum values, defaults, file names, `$id`s, …) becomes source
//! text of a generated file.
//!
//! Every piece of schema text is untrusted. It reaches generated code only through the
//! constructors of this module, one submodule per target language, one function per syntax:
//!
//! | syntax | Rust ([`rust`]) | TypeScript ([`typescript`]) | Python ([`python`]) |
//! |---|---|---|---|
//! | string literal | [`rust::string`], [`rust::raw_string`] | [`typescript::string`] | [`python::string`], [`python::regex`] |
//! | doc comment | [`rust::doc`] (`///`, `//!`) | [`typescript::doc`] (`/** */`) | [`python::docstring`] (`"""`) |
//! | line comment, or one line of a doc comment | [`rust::line`] | [`typescript::line`] | [`python::line`] |
//!
//! Each returns a newtype ([`rust::Lit`], [`rust::Line`], [`typescript::Lit`], …) whose only
//! constructors are these functions and whose `Display` writes the escaped text, so a template
//! context field holding schema text is one of these types and a template cannot paste raw
//! schema text: `{{ field }}` writes the escaped form. Identifiers made from schema text go
//! through `crate::ir::names` instead, which only ever returns ASCII identifiers.
//!
//! Comments: a line never holds a line terminator of any of the three languages (`\n`, `\r`,
//! U+2028, U+2029, U+0085, vertical tab, form feed and the other Unicode breaks), control
//! characters, NUL and Unicode bidirectional controls are written as visible `\u{…}` escapes,
//! and a doc comment never holds its own terminator.

pub mod python;
pub mod rust;
pub mod typescript;

/// Characters some language or tool treats as the end of a line: ECMAScript's line
/// terminators, Python's `str.splitlines` set, and Unicode's mandatory breaks.
pub(crate) fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}'..='\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Unicode bidirectional formatting characters, which can make source text read differently
/// from how it compiles (rustc denies them in comments and literals).
pub(crate) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Characters written as an escape rather than as themselves, even where the syntax would
/// accept them: controls (but tab), bidi controls, invisible characters and noncharacters.
pub(crate) fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t')
        || is_bidi(c)
        || matches!(
            c,
            '\u{ad}' | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

/// Splits text into lines at every line break ([`is_line_break`]; `\r\n` is one break),
/// without a last empty line for a final break, and trims trailing white space of each line.
pub(crate) fn split_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_line_break(c) {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            lines.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// One line of comment text: line breaks and invisible characters as `\u{…}`, so the text
/// stays on one line and reads the same everywhere.
pub(crate) fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_line_break(c) || is_invisible(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_every_break() {
        assert_eq!(
            split_lines("a\r\nb\rc\u{2028}d\u{85}e\n"),
            ["a", "b", "c", "d", "e"]
        );
        assert_eq!(split_lines(""), [""]);
        assert_eq!(split_lines("x  \n\ny"), ["x", "", "y"]);
    }

    #[test]
    fn comment_text_is_one_visible_line() {
        assert_eq!(
            comment_text("a\nb\u{0}c\u{202e}d\te"),
            "a\\u{a}b\\u{0}c\\u{202e}d\te"
        );
    }
}
