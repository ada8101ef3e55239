//! Absolute URIs (RFC 3986) of schema resources: retrieval URIs, `$id`s and resolved `$ref`s.
//!
//! Built on `fluent-uri` (the URI crate of the `jsonschema` crate's resolver), which parses and
//! resolves by RFC 3986 alone: no WHATWG URL rules and no IDNA (whose Unicode tables the `url`
//! crate brings in, 33 crates for a `build.rs` user to compile). Schemas are untrusted text, so
//! a reference is first made a URI: every character a URI cannot hold as written (a space,
//! quotes, angle brackets, non-ASCII, a `%` that starts no escape) is percent-encoded, as
//! browsers do. Every URI is then normalized (RFC 3986 section 6.2.2, and an empty path after an
//! authority is `/`), so that equal URIs are equal strings: the keys of the resource and anchor
//! indexes.

use std::fmt;
use std::path::{Path, PathBuf};

use fluent_uri::pct_enc::encoder::{self, Fragment};
use fluent_uri::pct_enc::{EStr, EString};
use fluent_uri::{Uri as Raw, UriRef};

/// An absolute, normalized URI (with a scheme; possibly with a fragment).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uri(Raw<String>);

impl Uri {
    /// Parses an absolute URI, encoding first what a URI cannot hold as written.
    pub fn parse(text: &str) -> Result<Uri, String> {
        let raw = Raw::parse(encode_reference(text)).map_err(|(e, _)| e.to_string())?;
        Ok(Uri::normalized(&raw))
    }

    fn normalized(raw: &Raw<String>) -> Uri {
        let mut text = raw.normalize().into_string();
        let n = Raw::parse(text.as_str()).expect("a normalized URI parses");
        if n.authority().is_some() && n.path().is_empty() {
            let at = text.find(['?', '#']).unwrap_or(text.len());
            text.insert(at, '/');
        }
        Uri(Raw::parse(text).expect("a URI with `/` as its path parses"))
    }

    /// Resolves a URI reference against this URI (RFC 3986 section 5; the fragment of `self`
    /// is ignored). A fragment-only reference works on any URI, a URN included; another
    /// relative reference against a URN has no meaning, and gives `None`, as does a reference
    /// that is not one once encoded.
    pub fn join(&self, reference: &str) -> Option<Uri> {
        let base = self.0.strip_fragment();
        let reference = UriRef::parse(encode_reference(reference)).ok()?;
        let joined = reference.resolve_against(&base).ok()?;
        Some(Uri::normalized(&joined))
    }

    /// The fragment as written in the URI (percent-encoded), if there is one.
    pub fn fragment(&self) -> Option<&str> {
        self.0.fragment().map(EStr::as_str)
    }

    /// Replaces the fragment by `text` (not encoded: every character a fragment cannot hold,
    /// `%` included, is percent-encoded), or removes it.
    pub fn set_fragment(&mut self, text: Option<&str>) {
        let encoded = text.map(|t| {
            let mut e = EString::<Fragment>::new();
            e.encode_str::<Fragment>(t);
            e
        });
        self.0.set_fragment(encoded.as_ref().map(EString::as_estr));
    }

    /// The URI without its fragment, as a string: the key of a resource.
    pub fn without_fragment(&self) -> String {
        self.0.strip_fragment().as_str().to_string()
    }

    /// The scheme, in lower case.
    pub fn scheme(&self) -> &str {
        self.0.scheme().as_str()
    }

    /// The path, percent-encoded.
    pub fn path(&self) -> &str {
        self.0.path().as_str()
    }

    /// The last segment of the path, percent-encoded (`""` after a trailing `/`).
    pub fn last_segment(&self) -> &str {
        let path = self.path();
        path.rsplit('/').next().unwrap_or(path)
    }

    /// The `file:` URI of an absolute path.
    pub fn from_file_path(path: &Path) -> Option<Uri> {
        if !path.is_absolute() {
            return None;
        }
        let text = path.to_str()?;
        let mut segments = text.split(std::path::is_separator);
        let mut uri = String::from("file://");
        if cfg!(windows) {
            // `C:\a\b` is `file:///C:/a/b`.
            uri.push('/');
            uri.push_str(segments.next()?);
        } else {
            // The empty text before the leading `/`.
            segments.next();
        }
        for segment in segments {
            uri.push('/');
            let mut e = EString::<encoder::Path>::new();
            e.encode_str::<encoder::Data>(segment);
            uri.push_str(e.as_str());
        }
        let raw = Raw::parse(uri).ok()?;
        Some(Uri::normalized(&raw))
    }

    /// The path a `file:` URI names (no host, or `localhost`).
    pub fn to_file_path(&self) -> Option<PathBuf> {
        if self.scheme() != "file" {
            return None;
        }
        if let Some(a) = self.0.authority() {
            if !a.as_str().is_empty() && !a.as_str().eq_ignore_ascii_case("localhost") {
                return None;
            }
        }
        let decoded = self.0.path().decode().to_string().ok()?;
        if cfg!(windows) {
            let path = decoded.strip_prefix('/').unwrap_or(&decoded);
            Some(PathBuf::from(path.replace('/', "\\")))
        } else {
            Some(PathBuf::from(decoded.into_owned()))
        }
    }

    /// The URI as text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for Uri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Uri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uri({:?})", self.as_str())
    }
}

/// A URI reference as it may be written in a schema, made a URI reference (RFC 3986): every
/// byte that may not appear where it stands is percent-encoded. Valid escapes (`%41`) stay;
/// brackets stay only in an authority (an IPv6 host); a `#` after the first is encoded.
fn encode_reference(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = text.as_bytes();
    let fragment_at = text.find('#');
    // The authority: after `//` at the start of the reference or after the scheme.
    let scheme_end = text
        .find(':')
        .filter(|&i| {
            i > 0
                && bytes[0].is_ascii_alphabetic()
                && bytes[..i]
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        })
        .map_or(0, |i| i + 1);
    let authority = text[scheme_end..].strip_prefix("//").map(|rest| {
        let start = scheme_end + 2;
        let len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        start..start + len
    });
    let mut out = String::with_capacity(text.len());
    for (i, &b) in bytes.iter().enumerate() {
        let in_fragment = fragment_at.is_some_and(|f| i > f);
        let keep = match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => true,
            b'-' | b'.' | b'_' | b'~' => true,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => true,
            b':' | b'/' | b'?' | b'@' => true,
            b'#' => !in_fragment,
            b'[' | b']' => authority.as_ref().is_some_and(|a| a.contains(&i)),
            b'%' => {
                bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            }
            _ => false,
        };
        if keep {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Uri;

    fn join(base: &str, reference: &str) -> Option<String> {
        Some(Uri::parse(base).ok()?.join(reference)?.to_string())
    }

    #[test]
    fn references_resolve_by_rfc_3986() {
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g/"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("../..", "http://a/"),
            ("../../../g", "http://a/g"),
            ("g;x=1/../y", "http://a/b/c/y"),
        ] {
            assert_eq!(
                join(base, reference).as_deref(),
                Some(expected),
                "{reference}"
            );
        }
    }

    #[test]
    fn equal_uris_are_equal_strings() {
        for (a, b) in [
            ("HTTP://Example.COM", "http://example.com/"),
            ("http://example.com/a/./b/../c", "http://example.com/a/c"),
            ("http://example.com/%7euser", "http://example.com/~user"),
            ("http://example.com:80/x", "http://example.com/x"),
        ] {
            assert_eq!(Uri::parse(a).unwrap(), Uri::parse(b).unwrap(), "{a}");
        }
    }

    #[test]
    fn what_a_uri_cannot_hold_is_encoded_and_escapes_stay() {
        let base = Uri::parse("file:///s/a.json").unwrap();
        let u = base.join("#/$defs/a b\"<>ä[0]#%zz%41").unwrap();
        assert_eq!(
            u.fragment(),
            Some("/$defs/a%20b%22%3C%3E%C3%A4%5B0%5D%23%25zzA")
        );
        assert_eq!(
            base.join("b c.json").unwrap().to_string(),
            "file:///s/b%20c.json"
        );
        assert_eq!(
            Uri::parse("http://[::1]:8080/x").unwrap().to_string(),
            "http://[::1]:8080/x"
        );
    }

    #[test]
    fn fragments_set_from_text_encode_every_percent() {
        let mut u = Uri::parse("urn:ctxgen:synthetic:1").unwrap();
        u.set_fragment(Some("/$defs/100%25 done"));
        assert_eq!(
            u.to_string(),
            "urn:ctxgen:synthetic:1#/$defs/100%2525%20done"
        );
        assert_eq!(u.without_fragment(), "urn:ctxgen:synthetic:1");
    }

    #[test]
    fn urns_take_fragments_and_absolute_references_only() {
        let urn = "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed";
        assert_eq!(join(urn, "#/$defs/x").unwrap(), format!("{urn}#/$defs/x"));
        assert_eq!(join(urn, "other.json"), None);
        assert_eq!(join(urn, "http://x/y").as_deref(), Some("http://x/y"));
    }

    #[cfg(unix)]
    #[test]
    fn file_paths_round_trip() {
        let path = std::path::Path::new("/tmp/a dir/ünï %41/x#y.json");
        let uri = Uri::from_file_path(path).unwrap();
        assert_eq!(
            uri.to_string(),
            "file:///tmp/a%20dir/%C3%BCn%C3%AF%20%2541/x%23y.json"
        );
        assert_eq!(uri.to_file_path().as_deref(), Some(path));
        assert_eq!(uri.last_segment(), "x%23y.json");
        assert_eq!(Uri::parse("http://x/a").unwrap().to_file_path(), None);
    }
}
