//! Rust: string literals, and the text of `//`, `///` and `//!` comments.

use std::fmt;

use super::{comment_text, is_invisible, split_lines};

/// A Rust string literal, quotes included; built only by [`string`] and [`raw_string`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lit(String);

/// Text that is safe on one comment line (`// …`, `/// …`, `//! …`); built only by [`line`],
/// [`doc`] and [`Line::blank`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line(String);

impl Lit {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Line {
    /// An empty line (a paragraph break in a doc comment).
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

/// A string literal holding exactly `s`: quotes, backslashes, line breaks, controls, bidi and
/// invisible characters escaped (rustc denies raw bidi controls, clippy invisible characters).
pub fn string(s: &str) -> Lit {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if is_invisible(c) || super::is_line_break(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Lit(out)
}

/// A raw string literal (for JSON text and patterns) with enough `#`s, or a plain literal when
/// the text has no backslash and no quote, or holds a character a raw string cannot show (a bare CR is an
/// error in one; controls and invisible characters are escaped).
pub fn raw_string(s: &str) -> Lit {
    if !s.contains(['\\', '"'])
        || s.chars()
            .any(|c| c == '\r' || is_invisible(c) || super::is_line_break(c))
    {
        return string(s);
    }
    let mut hashes = String::new();
    while s.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    Lit(format!("r{hashes}\"{s}\"{hashes}"))
}

/// Text for one comment line: line breaks and invisible characters as visible escapes, tabs
/// as spaces (clippy's `tabs_in_doc_comments`).
pub fn line(text: &str) -> Line {
    Line(comment_text(&text.replace('\t', "    ")))
}

/// The lines of a doc comment (`///` or `//!`) for a description: trimmed, split at every
/// line break, each line escaped as by [`line`]. The text is Markdown to rustdoc, and a code
/// block in it would be compiled and run by `cargo test` as a doctest: runs of three or more
/// backticks or tildes are backslash-escaped (no fence opens), and white space past the third
/// column of a run is written as no-break spaces (no indented code block), which renders the
/// same.
pub fn doc(text: &str) -> Vec<Line> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    // The list items a line is within, as (marker column, content column): items and their
    // continuation lines are indented as rustdoc's Markdown reads them (and as clippy's
    // `doc_lazy_continuation` and `doc_overindented_list_items` expect), nested items at
    // their parent's content column.
    let mut items: Vec<(usize, usize)> = Vec::new();
    split_lines(text)
        .iter()
        .map(|l| {
            let l = l.replace('\t', "    ");
            let rest = l.trim_start_matches(' ');
            let lead = l.len() - rest.len();
            let text = if rest.is_empty() {
                items.clear();
                String::new()
            } else if let Some(marker) = list_marker(rest) {
                // Leave the items this one is not inside (it starts before their content).
                while items.last().is_some_and(|&(_, content)| lead < content) {
                    items.pop();
                }
                let indent = match items.last() {
                    Some(&(_, content)) => content,
                    None => lead.min(3),
                };
                items.push((indent, indent + marker));
                format!("{}{}", " ".repeat(indent), no_code_blocks(rest))
            } else if let Some(&(_, content)) = items.last() {
                format!("{}{}", " ".repeat(content), no_code_blocks(rest))
            } else {
                no_code_blocks(&l)
            };
            Line(comment_text(&text))
        })
        .collect()
}

/// The width of the list marker a line starts with, its space included (`- ` is 2, `10. ` is
/// 4), as Markdown reads it.
fn list_marker(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let marker = match b.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            match b.get(digits) {
                Some(b'.' | b')') if digits <= 9 => digits + 1,
                _ => return None,
            }
        }
        _ => return None,
    };
    (b.get(marker) == Some(&b' ')).then_some(marker + 1)
}

fn no_code_blocks(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|x| **x == c).count();
        match c {
            '`' | '~' if run >= 3 => {
                for _ in 0..run {
                    out.push('\\');
                    out.push(c);
                }
            }
            ' ' => {
                for k in 0..run {
                    out.push(if k < 3 { ' ' } else { '\u{a0}' });
                }
            }
            _ => {
                for _ in 0..run {
                    out.push(c);
                }
            }
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &[&str] = &[
        "",
        "plain",
        "quote \" and backslash \\ and r#\"raw\"#",
        "line\nbreak\r\nand\rcr",
        "nul \0 bell \u{7} esc \u{1b} del \u{7f} c1 \u{85}",
        "bidi \u{202e}reversed\u{202c} \u{2066}isolate\u{2069}",
        "zero width \u{200b} soft \u{ad} bom \u{feff}",
        "seps \u{2028} \u{2029}",
        "*/ /* \"\"\" ''' ${x} `tick` # //",
        "é 日本 🦀",
        "\\",
        "\"#",
    ];

    #[test]
    fn string_literals_round_trip() {
        for s in HOSTILE {
            for lit in [string(s), raw_string(s)] {
                let parsed: syn::LitStr = syn::parse_str(lit.as_str())
                    .unwrap_or_else(|e| panic!("{lit} does not parse: {e}"));
                assert_eq!(parsed.value(), *s, "{lit}");
                assert!(!lit.as_str().contains(['\n', '\r', '\u{202e}']));
            }
        }
        assert_eq!(raw_string("a\\d\"b").as_str(), "r#\"a\\d\"b\"#");
        assert_eq!(raw_string("plain").as_str(), "\"plain\"");
    }

    #[test]
    fn doc_comments_stay_comments() {
        for s in HOSTILE {
            let lines = doc(s);
            let mut src = String::new();
            for l in &lines {
                src.push_str(&format!("///{}{l}\n", if l.is_empty() { "" } else { " " }));
            }
            src.push_str(&format!("// {}\n", line(s)));
            src.push_str("pub struct X;\n");
            let file: syn::File =
                syn::parse_str(&src).unwrap_or_else(|e| panic!("{src:?} does not parse: {e}"));
            assert_eq!(file.items.len(), 1, "{src:?}");
            let attrs = match &file.items[0] {
                syn::Item::Struct(s) => s.attrs.len(),
                _ => usize::MAX,
            };
            assert_eq!(attrs, lines.len(), "{src:?}");
        }
    }

    #[test]
    fn no_doctest_can_open() {
        let d = doc("Example:\n\n```\nstd::process::exit(1);\n```\n\n    indented();\n~~~rust\n");
        let text: Vec<&str> = d.iter().map(Line::as_str).collect();
        assert_eq!(text[2], "\\`\\`\\`");
        assert_eq!(text[6], "   \u{a0}indented();");
        assert_eq!(text[7], "\\~\\~\\~rust");
        assert!(text.iter().all(|l| !l.contains("```")));
    }
}
