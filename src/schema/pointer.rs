//! JSON Pointer (RFC 6901) encoding, decoding and lookup.

use serde_json::Value;

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Appends one token to a pointer.
pub fn push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape(token))
}

/// Splits a pointer into its unescaped tokens; `None` when it is not a pointer.
pub fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// Looks a pointer up in a JSON value (without allocating unless a token has an escape).
pub fn get<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut cur = root;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let t = match raw.contains('~') {
            true => std::borrow::Cow::Owned(raw.replace("~1", "/").replace("~0", "~")),
            false => std::borrow::Cow::Borrowed(raw),
        };
        cur = match cur {
            Value::Object(map) => map.get(t.as_ref())?,
            Value::Array(items) => {
                if t.len() > 1 && t.starts_with('0') {
                    return None;
                }
                items.get(t.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Decodes `%XX` escapes in a URI fragment.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_tokens() {
        assert_eq!(push("", "a/b~c"), "/a~1b~0c");
        assert_eq!(tokens("/a~1b~0c").unwrap(), vec!["a/b~c"]);
        assert_eq!(tokens("x"), None);
    }

    #[test]
    fn looks_up_values() {
        let v = json!({"a": [1, {"b/c": 2}], "%": 3});
        assert_eq!(get(&v, "/a/1/b~1c"), Some(&json!(2)));
        assert_eq!(get(&v, "/a/01"), None);
        assert_eq!(get(&v, "/a/9"), None);
        assert_eq!(percent_decode("%25"), "%");
        assert_eq!(percent_decode("a%2"), "a%2");
    }
}
