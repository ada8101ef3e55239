//! Delta debugging over a mutant's JSON trees: drop files, shorten synthesized chains, hoist
//! subschemas into their parents' place, remove members and items in shrinking chunks and
//! shorten strings, keeping each change only while the failure stays the same.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::build::{self, Tools};
use super::exec::{self, Class, Slot};
use super::fixture::MARKER;
use super::tree::{self, Seg};
use super::{Doc, Mutant};
use crate::corpus::Verdict;

/// The failure to keep.
#[derive(Debug, Clone)]
pub enum Target {
    /// Generation ends in this class (for a panic: at the same place).
    Gen(Class, String),
    /// Generates, but this build check fails.
    Build(String),
}

impl Target {
    pub fn describe(&self) -> String {
        match self {
            Target::Gen(c, at) if at.is_empty() => c.name().to_string(),
            Target::Gen(c, at) => format!("{} at {at}", c.name()),
            Target::Build(check) => format!("does-not-build {check}"),
        }
    }
}

/// Where a panic happened (`src/x.rs:12:5`), from its message.
pub fn panic_site(detail: &str) -> String {
    detail
        .split("panicked at ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("")
        .trim_end_matches(':')
        .to_string()
}

pub struct Minimizer<'a> {
    pub exe: PathBuf,
    pub work: PathBuf,
    pub target: Target,
    pub tools: Option<&'a Tools>,
    pub deadline: Instant,
    pub max_trials: usize,
    pub trials: usize,
    /// The last failure message seen for the kept mutant.
    pub detail: String,
}

impl Minimizer<'_> {
    /// Whether `m` still fails as the target says.
    pub fn holds(&mut self, m: &Mutant) -> bool {
        self.trials += 1;
        let build_dir = self.work.join("build");
        let slot = Slot::with_out(self.work.join("min"), build_dir.join("f0"));
        slot.clear();
        if m.write(&slot.schemas()).is_err() {
            return false;
        }
        let o = exec::generate(&self.exe, &slot, "corpus-f0", exec::LIMIT);
        let ok = match &self.target {
            Target::Gen(c, at) => {
                o.class == *c && (*c != Class::Panic || panic_site(&o.detail) == *at)
            }
            Target::Build(check) => {
                o.class == Class::Ok
                    && self.tools.is_some_and(|t| {
                        let r = build::check(&build_dir, &[0], t, Some(check));
                        match r.get(&0).and_then(|v| v.get(check.as_str())) {
                            Some(Verdict::Fail(msg)) => {
                                self.detail = msg.clone();
                                true
                            }
                            _ => false,
                        }
                    })
            }
        };
        if ok && !matches!(self.target, Target::Build(_)) {
            self.detail = o.detail;
        }
        ok
    }

    fn spent(&self) -> bool {
        self.trials >= self.max_trials || Instant::now() > self.deadline
    }

    /// Tries `doc` as file `f` of `m`; keeps it if the failure holds.
    fn attempt(&mut self, m: &mut Mutant, f: usize, doc: Value) -> bool {
        if self.spent() {
            return false;
        }
        let mut c = m.clone();
        c.files[f].doc = Doc::Json(doc);
        if self.holds(&c) {
            *m = c;
            true
        } else {
            false
        }
    }

    pub fn run(&mut self, mut m: Mutant) -> Mutant {
        loop {
            let before = size(&m);
            for i in (0..m.files.len()).rev() {
                if m.files.len() > 1 && !self.spent() {
                    let mut c = m.clone();
                    c.files.remove(i);
                    if self.holds(&c) {
                        m = c;
                    }
                }
            }
            for f in 0..m.files.len() {
                if matches!(m.files[f].doc, Doc::Json(_)) {
                    self.markers(&mut m, f);
                    self.hoist(&mut m, f);
                    self.remove(&mut m, f);
                    self.strings(&mut m, f);
                }
            }
            eprintln!(
                "minimize: {} trial(s), size {} -> {}",
                self.trials,
                before,
                size(&m)
            );
            if size(&m) >= before || self.spent() {
                return m;
            }
        }
    }

    /// Drops `$synthesize` markers or halves their length.
    fn markers(&mut self, m: &mut Mutant, f: usize) {
        let mut k = 0;
        loop {
            let doc = json_of(m, f);
            let paths = marker_paths(&doc);
            let Some(p) = paths.get(k).cloned() else {
                return;
            };
            let mut without = doc.clone();
            *tree::get_mut(&mut without, &p).expect("marker") = json!({});
            if self.attempt(m, f, without) {
                continue;
            }
            loop {
                let doc = json_of(m, f);
                let node = tree::get(&doc, &p).and_then(|n| n.get(MARKER));
                let length = node
                    .and_then(|s| s.get("length"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if length < 2 {
                    break;
                }
                let mut shorter = doc.clone();
                if let Some(spec) = tree::get_mut(&mut shorter, &p).and_then(|n| n.get_mut(MARKER))
                {
                    spec["length"] = json!(length / 2);
                }
                if !self.attempt(m, f, shorter) {
                    break;
                }
            }
            k += 1;
        }
    }

    /// Replaces subschemas by one of their own subschemas, shallow ones first.
    fn hoist(&mut self, m: &mut Mutant, f: usize) {
        let mut k = 0;
        while !self.spent() {
            let doc = json_of(m, f);
            let paths = tree::schema_paths(&doc, 5_000);
            let Some(p) = paths.get(k).cloned() else {
                return;
            };
            let children: Vec<Vec<Seg>> = paths
                .iter()
                .filter(|c| c.len() > p.len() && c.starts_with(&p) && c.len() <= p.len() + 2)
                .take(16)
                .cloned()
                .collect();
            let mut changed = false;
            for c in children {
                let mut next = doc.clone();
                let child = tree::get(&doc, &c).cloned().unwrap_or(Value::Null);
                *tree::get_mut(&mut next, &p).expect("path") = child;
                if self.attempt(m, f, next) {
                    changed = true;
                    break;
                }
            }
            if !changed {
                k += 1;
            }
        }
    }

    /// Removes members and items of every container in chunks of halving size.
    fn remove(&mut self, m: &mut Mutant, f: usize) {
        let mut k = 0;
        while !self.spent() {
            let doc = json_of(m, f);
            let mut paths = tree::container_paths(&doc, 20_000);
            paths.sort_by_key(|p| p.len());
            let Some(p) = paths.get(k).cloned() else {
                return;
            };
            k += 1;
            let n = len_at(&doc, &p);
            let mut chunk = n.div_ceil(2).max(1);
            while chunk >= 1 && !self.spent() {
                if chunk == 1 && len_at(&json_of(m, f), &p) > 64 {
                    break;
                }
                let mut start = 0;
                while start < len_at(&json_of(m, f), &p) && !self.spent() {
                    let mut next = json_of(m, f);
                    let removed = match tree::get_mut(&mut next, &p) {
                        Some(Value::Object(o)) => {
                            let keys: Vec<String> =
                                o.keys().skip(start).take(chunk).cloned().collect();
                            for key in &keys {
                                o.shift_remove(key);
                            }
                            !keys.is_empty()
                        }
                        Some(Value::Array(a)) if start < a.len() => {
                            let end = (start + chunk).min(a.len());
                            a.drain(start..end);
                            true
                        }
                        _ => false,
                    };
                    if !removed || !self.attempt(m, f, next) {
                        start += chunk;
                    }
                }
                if chunk == 1 {
                    break;
                }
                chunk = chunk.div_ceil(2);
            }
        }
    }

    /// Halves long strings.
    fn strings(&mut self, m: &mut Mutant, f: usize) {
        let doc = json_of(m, f);
        let mut stack: Vec<Vec<Seg>> = vec![Vec::new()];
        let mut strings = Vec::new();
        while let Some(p) = stack.pop() {
            match tree::get(&doc, &p) {
                Some(Value::Object(o)) if !o.contains_key(MARKER) => {
                    for key in o.keys() {
                        let mut q = p.clone();
                        q.push(Seg::Key(key.clone()));
                        stack.push(q);
                    }
                }
                Some(Value::Array(a)) => {
                    for i in 0..a.len() {
                        let mut q = p.clone();
                        q.push(Seg::Idx(i));
                        stack.push(q);
                    }
                }
                Some(Value::String(s)) if s.chars().count() > 12 && !p.is_empty() => {
                    strings.push(p)
                }
                _ => {}
            }
        }
        for p in strings.into_iter().take(200) {
            loop {
                let doc = json_of(m, f);
                let Some(Value::String(s)) = tree::get(&doc, &p) else {
                    break;
                };
                let n = s.chars().count();
                if n <= 12 {
                    break;
                }
                let half: String = s.chars().take(n / 2).collect();
                let mut next = doc.clone();
                *tree::get_mut(&mut next, &p).expect("path") = json!(half);
                if !self.attempt(m, f, next) {
                    break;
                }
            }
        }
    }
}

fn json_of(m: &Mutant, f: usize) -> Value {
    match &m.files[f].doc {
        Doc::Json(v) => v.clone(),
        Doc::Raw(_) => Value::Null,
    }
}

fn len_at(doc: &Value, p: &[Seg]) -> usize {
    match tree::get(doc, p) {
        Some(Value::Object(o)) => o.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

fn marker_paths(doc: &Value) -> Vec<Vec<Seg>> {
    let mut out = Vec::new();
    let mut stack: Vec<Vec<Seg>> = vec![Vec::new()];
    while let Some(p) = stack.pop() {
        match tree::get(doc, &p) {
            Some(Value::Object(o)) if o.contains_key(MARKER) => out.push(p),
            Some(Value::Object(o)) => {
                for key in o.keys() {
                    let mut q = p.clone();
                    q.push(Seg::Key(key.clone()));
                    stack.push(q);
                }
            }
            Some(Value::Array(a)) => {
                for i in 0..a.len() {
                    let mut q = p.clone();
                    q.push(Seg::Idx(i));
                    stack.push(q);
                }
            }
            _ => {}
        }
    }
    out.sort();
    out
}

/// The size of a mutant: bytes of its files (markers count as their spec, not expanded).
pub fn size(m: &Mutant) -> usize {
    m.files
        .iter()
        .map(|f| {
            f.name.len()
                + match &f.doc {
                    Doc::Json(v) => serde_json::to_string(v).map_or(0, |s| s.len()),
                    Doc::Raw(b) => b.len(),
                }
        })
        .sum()
}

/// Writes `tests/hostile/<name>/expect.json` for a minimized mutant: the schema files inline
/// (markers kept), the expectation that it generates and builds (edit it if a clean error is
/// the right answer).
pub fn write_fixture(
    root: &Path,
    name: &str,
    m: &Mutant,
    description: &str,
) -> std::io::Result<PathBuf> {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir)?;
    let mut files = std::collections::BTreeMap::new();
    let mut raw = std::collections::BTreeMap::new();
    for f in &m.files {
        match &f.doc {
            Doc::Json(v) => {
                files.insert(f.name.clone(), v.clone());
            }
            Doc::Raw(b) => {
                raw.insert(f.name.clone(), String::from_utf8_lossy(b).into_owned());
            }
        }
    }
    let text = super::fixture::expect_json(
        description,
        &super::fixture::Outcome::Generates,
        &[],
        &[],
        true,
        &files,
        &raw,
    );
    std::fs::write(dir.join("expect.json"), text)?;
    Ok(dir)
}

/// A deadline `secs` from now.
pub fn deadline(secs: u64) -> Instant {
    Instant::now() + Duration::from_secs(secs)
}
