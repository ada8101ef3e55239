//! Versions and the bump a change requires (seed 002's rules: a compatible change bumps the
//! minor version, a breaking one the major).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// A release bump, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// Nothing a validator or a generated API can tell apart.
    Patch,
    Minor,
    Major,
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        })
    }
}

/// A semantic version (`1.2.3`, a pre-release or build suffix kept as text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub suffix: String,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}.{}{}",
            self.major, self.minor, self.patch, self.suffix
        )
    }
}

impl Version {
    /// Parses `1`, `1.2`, `v1.2.3`, `1.2.3-beta.1`, `2.x` (missing parts are 0).
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim().trim_start_matches(['v', 'V']);
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x' || c == 'X'))
            .unwrap_or(s.len());
        let (nums, suffix) = s.split_at(end);
        let nums = nums.trim_end_matches('.');
        let mut parts = nums.split('.').map(|p| {
            if p.eq_ignore_ascii_case("x") {
                Some(0)
            } else {
                p.parse::<u64>().ok()
            }
        });
        let major = parts.next()??;
        let minor = parts.next().unwrap_or(Some(0))?;
        let patch = parts.next().unwrap_or(Some(0))?;
        if parts.next().is_some() {
            return None;
        }
        Some(Version {
            major,
            minor,
            patch,
            suffix: suffix.to_string(),
        })
    }

    /// The bump from `self` to `next`, or `None` when `next` is not later.
    pub fn bump_to(&self, next: &Version) -> Option<Bump> {
        let a = (self.major, self.minor, self.patch);
        let b = (next.major, next.minor, next.patch);
        if b < a || (a == b && self.suffix == next.suffix) {
            return None;
        }
        Some(if b.0 != a.0 {
            Bump::Major
        } else if b.1 != a.1 {
            Bump::Minor
        } else {
            Bump::Patch
        })
    }

    /// What a bump must be under semver when the major version is 0: a breaking change bumps
    /// the minor version, anything else the patch version.
    pub fn semver_bump(&self, change: Bump) -> Bump {
        if self.major == 0 {
            match change {
                Bump::Major => Bump::Minor,
                _ => Bump::Patch,
            }
        } else {
            change
        }
    }
}

/// The version a schema set declares: a root `schema_version` property's `const`, `default`,
/// single `enum` value or first `examples` value; a root `version` / `x-version` string; or a
/// version in the root `$id`. Returns the highest one found over the set's modules.
pub fn declared(roots: &[(String, Value)]) -> Option<(Version, String)> {
    let mut best: Option<(Version, String)> = None;
    for (rel, root) in roots {
        let Some((v, at)) = from_root(root) else {
            continue;
        };
        let found = (v, format!("{rel}#/{at}"));
        if best
            .as_ref()
            .is_none_or(|(b, _)| b.bump_to(&found.0).is_some())
        {
            best = Some(found);
        }
    }
    best
}

fn from_root(root: &Value) -> Option<(Version, String)> {
    let sv = root.pointer("/properties/schema_version");
    if let Some(sv) = sv {
        for (key, v) in [
            ("const", sv.get("const")),
            ("default", sv.get("default")),
            ("enum", sv.get("enum").and_then(|e| e.get(0))),
            ("examples", sv.get("examples").and_then(|e| e.get(0))),
        ] {
            if let Some(v) = v.and_then(Value::as_str).and_then(Version::parse) {
                return Some((v, format!("properties/schema_version/{key}")));
            }
        }
    }
    for key in ["version", "x-version"] {
        if let Some(v) = root
            .get(key)
            .and_then(Value::as_str)
            .and_then(Version::parse)
        {
            return Some((v, key.to_string()));
        }
    }
    let id = root.get("$id").or_else(|| root.get("id"))?.as_str()?;
    version_in_name(id).map(|v| (v, "$id".to_string()))
}

/// A version inside a file name or URL (`abc-supply-plan-2.0.0.json`, `/v3/schema.json`).
pub fn version_in_name(s: &str) -> Option<Version> {
    let name = s.rsplit(['/', '\\']).find(|p| !p.is_empty()).unwrap_or(s);
    let stem = name.strip_suffix(".json").unwrap_or(name);
    let bytes = stem.as_bytes();
    for (i, c) in stem.char_indices() {
        let boundary = i == 0 || matches!(bytes[i - 1], b'-' | b'_' | b'.' | b'v' | b'V');
        let before_v = i >= 2
            && matches!(bytes[i - 1], b'v' | b'V')
            && !matches!(bytes[i - 2], b'-' | b'_' | b'.');
        if c.is_ascii_digit() && boundary && !before_v {
            let rest = &stem[i..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x' || c == 'X'))
                .unwrap_or(rest.len());
            let tail = &rest[end..];
            let suffix_end = tail.find('.').unwrap_or(tail.len());
            if let Some(v) = Version::parse(&rest[..end + suffix_end]) {
                return Some(v);
            }
        }
    }
    None
}
