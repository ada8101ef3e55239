//! Which subschema applies to each value of an instance, as far as a simple walk can tell:
//! `$ref`s are followed (within the document, and to other corpus files found the way the
//! oracle finds them), `properties`, `patternProperties`, `additionalProperties`,
//! `items`/`prefixItems` descend, and a member not found at one level is looked for in the
//! branches of `allOf`/`anyOf`/`oneOf`/`then`/`else`. Used to pick mutations (the oracle
//! classifies every mutant) and to tell an applied `default` from another added member.
//!
//! A location is `<document index>#<JSON Pointer>`; document 0 is the schema itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::oracle::{read_json, CorpusRetriever};

const BRANCHES: &[&str] = &["allOf", "anyOf", "oneOf", "then", "else"];
const MAX_HOPS: usize = 32;
const MAX_BRANCH_DEPTH: usize = 6;

pub const ROOT: &str = "0#";

pub struct Walker<'r> {
    docs: RefCell<Vec<Arc<Value>>>,
    files: RefCell<HashMap<PathBuf, Option<usize>>>,
    retriever: Option<&'r CorpusRetriever>,
    patterns: RefCell<HashMap<String, Option<regex::Regex>>>,
}

pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parts(loc: &str) -> Option<(usize, &str)> {
    let (d, p) = loc.split_once('#')?;
    Some((d.parse().ok()?, p))
}

impl<'r> Walker<'r> {
    pub fn new(schema: Arc<Value>, retriever: Option<&'r CorpusRetriever>) -> Self {
        Walker {
            docs: RefCell::new(vec![schema]),
            files: RefCell::new(HashMap::new()),
            retriever,
            patterns: RefCell::new(HashMap::new()),
        }
    }

    /// Applies `f` to the subschema at `loc`.
    pub fn with<R>(&self, loc: &str, f: impl FnOnce(&Value) -> R) -> Option<R> {
        let (d, p) = parts(loc)?;
        let doc = self.docs.borrow().get(d)?.clone();
        doc.pointer(p).map(f)
    }

    fn load(&self, uri: &str) -> Option<usize> {
        let file = self.retriever?.file_for(uri)?;
        if let Some(i) = self.files.borrow().get(&file) {
            return *i;
        }
        let idx = read_json(&file).ok().map(|d| {
            let mut docs = self.docs.borrow_mut();
            docs.push(Arc::new(d));
            docs.len() - 1
        });
        self.files.borrow_mut().insert(file, idx);
        idx
    }

    fn target(&self, doc: usize, reference: &str) -> Option<String> {
        let (uri, frag) = reference.split_once('#').unwrap_or((reference, ""));
        let frag = percent_decode(frag);
        if !(frag.is_empty() || frag.starts_with('/')) {
            return None;
        }
        let doc = if uri.is_empty() { doc } else { self.load(uri)? };
        Some(format!("{doc}#{frag}"))
    }

    /// The locations along the `$ref` chain from `loc`, `loc` first.
    fn chain(&self, loc: &str) -> Vec<String> {
        let mut out = vec![loc.to_string()];
        for _ in 0..MAX_HOPS {
            let cur = out.last().cloned().unwrap_or_default();
            let Some((d, _)) = parts(&cur) else { break };
            let next = self
                .with(&cur, |s| {
                    s.get("$ref").and_then(Value::as_str).map(String::from)
                })
                .flatten()
                .and_then(|r| self.target(d, &r));
            match next {
                Some(n) if self.with(&n, |_| ()).is_some() && !out.contains(&n) => out.push(n),
                _ => break,
            }
        }
        out
    }

    /// The `default`s along the `$ref` chain from `loc`.
    pub fn defaults(&self, loc: &str) -> Vec<Value> {
        self.chain(loc)
            .iter()
            .filter_map(|l| self.with(l, |s| s.get("default").cloned()).flatten())
            .collect()
    }

    fn matches(&self, pattern: &str, key: &str) -> bool {
        let mut cache = self.patterns.borrow_mut();
        let re = cache
            .entry(pattern.to_string())
            .or_insert_with(|| regex::Regex::new(pattern).ok());
        re.as_ref().is_some_and(|re| re.is_match(key))
    }

    /// The location of the subschema that applies to member `key` of an object at `loc`.
    pub fn member(&self, loc: &str, key: &str) -> Option<String> {
        self.member_at(loc, key, 0)
    }

    /// Where the subschema at `p` itself says what member `key` is.
    fn own_members(&self, p: &str, key: &str) -> Vec<String> {
        self.with(p, |s| {
            let mut here = Vec::new();
            if s.get("properties").and_then(|x| x.get(key)).is_some() {
                here.push(format!("{p}/properties/{}", escape(key)));
            }
            if let Some(pats) = s.get("patternProperties").and_then(Value::as_object) {
                for pat in pats.keys().filter(|pat| self.matches(pat, key)) {
                    here.push(format!("{p}/patternProperties/{}", escape(pat)));
                }
            }
            if s.get("additionalProperties").is_some_and(Value::is_object) {
                here.push(format!("{p}/additionalProperties"));
            }
            here
        })
        .unwrap_or_default()
    }

    // Along the `$ref` chain (a `$ref` has siblings from 2019-09 on), then in the branches.
    fn member_at(&self, loc: &str, key: &str, depth: usize) -> Option<String> {
        let chain = self.chain(loc);
        if let Some(found) = chain
            .iter()
            .find_map(|p| self.own_members(p, key).into_iter().next())
        {
            return Some(found);
        }
        chain
            .iter()
            .find_map(|p| self.in_branches(p, depth, |b| self.member_at(b, key, depth + 1)))
    }

    /// Every location that may apply to member `key` of an object at `loc`: its own
    /// `properties`, `patternProperties` or `additionalProperties` and those of every branch.
    pub fn member_all(&self, loc: &str, key: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(loc.to_string(), 0)];
        while let Some((loc, depth)) = stack.pop() {
            for p in self.chain(&loc) {
                out.extend(self.own_members(&p, key));
                if depth < MAX_BRANCH_DEPTH {
                    let branches = self.branches(&p);
                    stack.extend(branches.into_iter().rev().map(|b| (b, depth + 1)));
                }
            }
        }
        out
    }

    fn branches(&self, p: &str) -> Vec<String> {
        self.with(p, |s| {
            let mut out = Vec::new();
            for kw in BRANCHES {
                match s.get(*kw) {
                    Some(Value::Array(list)) => {
                        out.extend((0..list.len()).map(|i| format!("{p}/{kw}/{i}")))
                    }
                    Some(Value::Object(_)) => out.push(format!("{p}/{kw}")),
                    _ => {}
                }
            }
            out
        })
        .unwrap_or_default()
    }

    /// The location of the subschema that applies to item `index` of an array at `loc`.
    pub fn item(&self, loc: &str, index: usize) -> Option<String> {
        self.item_at(loc, index, 0)
    }

    fn own_item(&self, p: &str, index: usize) -> Option<String> {
        self.with(p, |s| {
            for kw in ["prefixItems", "items"] {
                if let Some(list) = s.get(kw).and_then(Value::as_array) {
                    if index < list.len() {
                        return Some(format!("{p}/{kw}/{index}"));
                    }
                }
            }
            ["items", "additionalItems"]
                .iter()
                .find(|kw| s.get(**kw).is_some_and(Value::is_object))
                .map(|kw| format!("{p}/{kw}"))
        })
        .flatten()
    }

    fn item_at(&self, loc: &str, index: usize, depth: usize) -> Option<String> {
        let chain = self.chain(loc);
        if let Some(found) = chain.iter().find_map(|p| self.own_item(p, index)) {
            return Some(found);
        }
        chain
            .iter()
            .find_map(|p| self.in_branches(p, depth, |b| self.item_at(b, index, depth + 1)))
    }

    fn in_branches(
        &self,
        p: &str,
        depth: usize,
        find: impl Fn(&str) -> Option<String>,
    ) -> Option<String> {
        if depth >= MAX_BRANCH_DEPTH {
            return None;
        }
        let branches = self.branches(p);
        branches.iter().find_map(|b| find(b))
    }

    /// The names the subschema at `loc` (or an `allOf` branch of it) requires.
    pub fn required(&self, loc: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![(loc.to_string(), 0)];
        while let Some((loc, depth)) = stack.pop() {
            for p in self.chain(&loc) {
                let found = self.with(&p, |s| {
                    let req: Vec<String> = s
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| {
                            r.iter()
                                .filter_map(Value::as_str)
                                .map(String::from)
                                .collect()
                        })
                        .unwrap_or_default();
                    let all = s.get("allOf").and_then(Value::as_array).map_or(0, Vec::len);
                    (req, all)
                });
                let Some((req, all)) = found else { continue };
                out.extend(req);
                if depth < MAX_BRANCH_DEPTH {
                    stack.extend((0..all).map(|i| (format!("{p}/allOf/{i}"), depth + 1)));
                }
            }
        }
        out
    }
}
