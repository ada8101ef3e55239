//! Parsing schema text into a `serde_json::Value` with a nesting bound of ctxgen's own.
//!
//! serde_json stops at 128 levels, which a realistic schema can pass (64 objects nested through
//! `properties` are 128 levels). ctxgen allows [`MAX_NESTING`] levels instead: the text is first
//! scanned (linear, no recursion) and refused with the position of the first level too deep;
//! only then is it parsed with serde_json's own limit lifted.

use serde::Deserialize;
use serde_json::Value;

/// The deepest JSON nesting (objects and arrays) a schema file may have. Every pass of the
/// generator that follows the nesting recursively stays well inside the main thread's stack at
/// this depth (`tests/termination.rs` runs them on 2 MiB).
pub const MAX_NESTING: usize = 512;

/// A parse failure at a 1-based line and column.
#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses `text`, refusing nesting deeper than [`MAX_NESTING`].
pub fn parse(text: &str) -> Result<Value, ParseError> {
    if let Some((line, column)) = too_deep(text, MAX_NESTING) {
        return Err(ParseError {
            line,
            column,
            message: format!("JSON nested deeper than {MAX_NESTING} levels"),
        });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| ParseError {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })
}

/// The position (line, column; 1-based, columns in bytes as serde_json counts them) of the
/// first `{` or `[` outside a string that opens level `limit + 1`, if any. Malformed text is
/// scanned all the same: the parser reports its errors afterwards.
fn too_deep(text: &str, limit: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in text.as_bytes() {
        if b == b'\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some((line, column));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// serde_json's message without its " at line L column C" suffix (the position is kept apart).
pub fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}1{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn nesting_up_to_the_limit_parses() {
        assert!(parse(&nested(MAX_NESTING)).is_ok());
        let e = parse(&nested(MAX_NESTING + 1)).unwrap_err();
        assert_eq!((e.line, e.column), (1, MAX_NESTING + 1));
        assert!(e.message.contains("nested deeper"), "{}", e.message);
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        let text = format!(r#"{{"a": "{}\"[{{", "b": [1]}}"#, "[".repeat(10_000));
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn the_position_is_the_opening_bracket() {
        let text = format!("{{\n  \"a\": {}", "[".repeat(MAX_NESTING + 5));
        let e = parse(&text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 7 + MAX_NESTING));
    }

    #[test]
    fn malformed_text_keeps_serde_json_positions() {
        let e = parse("{\n  \"a\": tru }").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(!e.message.contains(" at line "), "{}", e.message);
    }
}
