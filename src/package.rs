//! The package name and the values written into package manifests (`Cargo.toml`,
//! `pyproject.toml`, `package.json`).
//!
//! The package name is given once, in kebab-case; each language derives its own name from it
//! (the crate name and the npm name are the name itself, the Python distribution name too, and
//! the Python import name is its snake_case form). [`validate_name`] refuses a name that does not
//! give a valid name in every requested language, so nothing reaches a manifest that its syntax
//! would read otherwise. Independently of that check, every value that reaches a manifest goes
//! through the one escaping function of that manifest's syntax: [`toml_string`] or
//! [`json_string`].

use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::ir::names::{self, Lang};

/// The longest crate name crates.io accepts.
const CRATE_MAX: usize = 64;
/// The longest package name the npm registry accepts.
const NPM_MAX: usize = 214;

/// Checks that `name` gives a valid package name in every language of `langs`; the error says
/// which rule it breaks.
pub fn validate_name(name: &str, langs: &[Lang]) -> Result<()> {
    let bad =
        |why: String| Error::Usage(format!("invalid package name {}: {why}", json_string(name)));
    if name.is_empty() {
        return Err(bad("it is empty".into()));
    }
    for lang in langs {
        match lang {
            Lang::Rust => {
                crate_name(name).map_err(|why| bad(format!("as a Rust crate name, {why}")))?
            }
            Lang::TypeScript => {
                npm_name(name).map_err(|why| bad(format!("as an npm package name, {why}")))?
            }
            Lang::Python => {
                python_dist(name)
                    .map_err(|why| bad(format!("as a Python distribution name, {why}")))?;
                let import = names::module_name(Lang::Python, name);
                python_import(&import).map_err(|why| {
                    bad(format!(
                        "its Python import name `{import}` is not valid: {why}"
                    ))
                })?;
            }
        }
    }
    Ok(())
}

/// A crate name: ASCII letters, digits, `-` and `_`, starting with a letter, at most 64.
fn crate_name(name: &str) -> std::result::Result<(), String> {
    if name.len() > CRATE_MAX {
        return Err(format!("it is longer than {CRATE_MAX} characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("it must start with an ASCII letter".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "{} is not allowed (only ASCII letters, digits, `-` and `_`)",
            describe(c)
        ));
    }
    Ok(())
}

/// An npm name: at most 214 characters, lowercase, URL-safe (`a-z`, `0-9`, `-`, `.`, `_`), not
/// starting with `.` or `_`, with an optional `@scope/` of the same characters.
fn npm_name(name: &str) -> std::result::Result<(), String> {
    if name.len() > NPM_MAX {
        return Err(format!("it is longer than {NPM_MAX} characters"));
    }
    let (scope, bare) = match name.strip_prefix('@') {
        Some(rest) => match rest.split_once('/') {
            Some((scope, bare)) => (Some(scope), bare),
            None => return Err("a scoped name is `@scope/name`".into()),
        },
        None => (None, name),
    };
    for part in scope.into_iter().chain([bare]) {
        if part.is_empty() {
            return Err("a scoped name is `@scope/name`".into());
        }
        if !part.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit()) {
            return Err("it must start with a lowercase letter or a digit".into());
        }
        if let Some(c) = part.chars().find(|c| {
            !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_'))
        }) {
            return Err(format!(
                "{} is not allowed (only lowercase ASCII letters, digits, `-`, `.` and `_`)",
                describe(c)
            ));
        }
    }
    if ["node_modules", "favicon.ico"].contains(&bare) {
        return Err(format!("`{bare}` is reserved"));
    }
    Ok(())
}

/// A distribution name as PEP 508 defines it: ASCII letters and digits, with `-`, `_` and `.`
/// inside.
fn python_dist(name: &str) -> std::result::Result<(), String> {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if !edge(name.chars().next()) || !edge(name.chars().next_back()) {
        return Err("it must start and end with an ASCII letter or digit".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "{} is not allowed (only ASCII letters, digits, `-`, `_` and `.`)",
            describe(c)
        ));
    }
    Ok(())
}

/// A Python identifier in ASCII.
fn python_import(name: &str) -> std::result::Result<(), String> {
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err("not an ASCII Python identifier".into())
    }
}

fn describe(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("the character U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

/// `s` as a TOML basic string, quotes included: `"`, `\` and every control character escaped.
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as a JSON string, quotes included.
pub fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[Lang] = &[Lang::Rust, Lang::TypeScript, Lang::Python];

    #[test]
    fn kebab_names_pass_everywhere() {
        for name in ["context-protocols", "a", "x1", "my_pkg", "a-b-c-9"] {
            validate_name(name, ALL).unwrap();
        }
    }

    #[test]
    fn hostile_names_are_refused() {
        for name in [
            "",
            "a\"b",
            "x\"\nbuild = \"evil.rs",
            "a b",
            "a/b",
            "../x",
            "-x",
            "1x",
            "x-",
            "Ünï",
            "a\\b",
            "a\u{0}b",
            &"a".repeat(65),
        ] {
            let err = validate_name(name, ALL).unwrap_err().to_string();
            assert!(err.starts_with("invalid package name "), "{name:?}: {err}");
        }
    }

    #[test]
    fn each_language_has_its_rules() {
        // npm wants lowercase; a crate and a distribution may have capitals.
        validate_name("MyPkg", &[Lang::Rust, Lang::Python]).unwrap();
        assert!(validate_name("MyPkg", &[Lang::TypeScript]).is_err());
        // A scope is npm only.
        validate_name("@acme/protocols", &[Lang::TypeScript]).unwrap();
        assert!(validate_name("@acme/protocols", &[Lang::Rust]).is_err());
        assert!(validate_name("@acme/protocols", &[Lang::Python]).is_err());
        assert!(validate_name("@acme", &[Lang::TypeScript]).is_err());
        assert!(validate_name("@/x", &[Lang::TypeScript]).is_err());
        // Dots are fine for npm and PyPI, not for a crate.
        validate_name("a.b", &[Lang::TypeScript, Lang::Python]).unwrap();
        assert!(validate_name("a.b", &[Lang::Rust]).is_err());
        assert!(validate_name("node_modules", &[Lang::TypeScript]).is_err());
        assert!(validate_name(&"a".repeat(215), &[Lang::TypeScript]).is_err());
        validate_name(&"a".repeat(214), &[Lang::TypeScript]).unwrap();
    }

    #[test]
    fn toml_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(toml_string("plain"), "\"plain\"");
        assert_eq!(toml_string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
        assert_eq!(
            toml_string("\u{0}\u{1f}\u{7f}"),
            "\"\\u0000\\u001F\\u007F\""
        );
        for s in [
            "x\"\nbuild = \"evil.rs",
            "\u{0}\u{1}\t\r\u{8}\u{c}\u{7f}\u{85}",
            "é \u{2028} 😀",
            "'''\"\"\"",
        ] {
            let doc = format!("key = {}\n", toml_string(s));
            let parsed: toml::Table = toml::from_str(&doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
            assert_eq!(parsed.len(), 1, "{doc}");
            assert_eq!(parsed["key"].as_str(), Some(s), "{doc}");
        }
    }

    #[test]
    fn json_strings_round_trip() {
        for s in ["a\"b", "x\"\n\"build\": 1", "\u{0}\u{2028}\\"] {
            let v: serde_json::Value = serde_json::from_str(&json_string(s)).unwrap();
            assert_eq!(v.as_str(), Some(s));
        }
    }
}
