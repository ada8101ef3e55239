//! Schema families of a corpus directory: files named `<family>-<version>.json` (and similar),
//! grouped by family and ordered by version.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The first version-like token of a file stem: (start, end).
pub fn version_span(stem: &str) -> Option<(usize, usize)> {
    let b = stem.as_bytes();
    for (i, c) in stem.char_indices() {
        if !c.is_ascii_digit() {
            continue;
        }
        let prev = if i == 0 { b'-' } else { b[i - 1] };
        let ok = matches!(prev, b'-' | b'_' | b'.')
            || (matches!(prev, b'v' | b'V') && (i < 2 || matches!(b[i - 2], b'-' | b'_' | b'.')));
        if !ok {
            continue;
        }
        let rest = &stem[i..];
        let mut end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'x' || c == 'X'))
            .unwrap_or(rest.len());
        // A pre-release suffix (`-beta3`, `-B4`, `-rtm.2`, `-rc1`).
        let tail = &rest[end..];
        if let Some(t) = tail.strip_prefix('-') {
            let word: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let word = word.trim_end_matches('.');
            if !word.is_empty() && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                end += 1 + word.len();
            }
        }
        let start = if matches!(prev, b'v' | b'V') {
            i - 1
        } else {
            i
        };
        let end = i + rest[..end].trim_end_matches('.').len();
        return Some((start, end));
    }
    None
}

/// Sort key: numbers, then release after pre-release, then the suffix with numbers compared as numbers.
pub fn version_key(v: &str) -> (Vec<u64>, bool, Vec<(String, u64)>) {
    let v = v.trim_start_matches(['v', 'V']);
    let (nums, suffix) = v.split_once('-').unwrap_or((v, ""));
    let nums = nums.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    let mut parts = Vec::new();
    let mut word = String::new();
    let mut num = String::new();
    for c in suffix.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                parts.push((std::mem::take(&mut word), num.parse().unwrap_or(0)));
                num.clear();
            }
            word.push(c);
        }
    }
    parts.push((word, num.parse().unwrap_or(0)));
    (nums, suffix.is_empty(), parts)
}

pub fn seeds(instances: &Option<PathBuf>, file: &Path) -> Vec<Value> {
    let Some(dir) = instances else {
        return Vec::new();
    };
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir.join("valid").join(stem)) {
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if let Some(v) = std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
            {
                out.push(v);
            }
        }
    }
    out
}

/// Every family with at least two versions, versions in order: `family` is the file stem with
/// the version replaced by `{v}`.
pub fn discover(corpus: &Path) -> std::io::Result<BTreeMap<String, Vec<(String, PathBuf)>>> {
    let mut families: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    for e in std::fs::read_dir(corpus)?.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        if let Some((s, t)) = version_span(stem) {
            let family = format!("{}{{v}}{}", &stem[..s], &stem[t..]);
            families
                .entry(family)
                .or_default()
                .push((stem[s..t].to_string(), p));
        }
    }
    families.retain(|_, v| v.len() > 1);
    for versions in families.values_mut() {
        versions.sort_by_key(|(v, _)| version_key(v));
    }
    Ok(families)
}
