//! `ctxgen diff`: what a schema change does on the wire (per role, each incompatibility shown
//! by a counterexample both versions' validators agree on), to each generated API, and which
//! version bump it needs. See `docs/evolution.md`.

pub mod api;
#[cfg(feature = "cli")]
pub mod cli;
pub mod confirm;
pub mod finite;
mod formats;
pub mod instances;
/// The interpreter of the validation program (`crate::ir::interp`), where it used to be.
pub use crate::ir::interp;
mod language;
mod reach;
pub mod report;
pub mod verify;
pub mod version;
pub mod wire;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::ir::{Ir, NodeId, Program};
use crate::Config;
use confirm::{Counterexample, Party};
use interp::{Interp, Unknown};
use version::{Bump, Version};
use wire::{Change, Compare, Effect, Side};

/// One version of a schema set, loaded.
pub struct Loaded {
    /// How the user named it (a directory, a file, `git:REV`).
    pub label: String,
    pub ir: Ir,
    /// The root JSON of every schema file read, by path relative to the schema root.
    pub roots: Vec<(String, Value)>,
    /// Valid instances known for the set's root types (e.g. a corpus's test instances).
    pub seeds: Vec<Value>,
}

/// Loads a directory of schemas, or a list of schema files.
pub fn load(paths: &[PathBuf], label: impl Into<String>) -> Result<Loaded> {
    let mut config = Config::new();
    // A consumer that checks formats must not be broken by a format change: compatibility is
    // judged with `format` asserted, in 2019-09 and 2020-12 schemas too (as before ctxgen
    // followed the specification's annotation default).
    config.assert_formats(true);
    let mut files = Vec::new();
    match paths {
        [dir] if dir.is_dir() => {
            config.schemas_dir(dir);
            collect_json(dir, dir, &mut files)?;
        }
        _ => {
            config.schema_files(paths.to_vec());
            for p in paths {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                files.push((name.unwrap_or_default(), p.clone()));
            }
        }
    }
    let ir = config.ir()?;
    let mut roots = Vec::new();
    for (rel, path) in files {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            roots.push((rel, v));
        }
    }
    Ok(Loaded {
        label: label.into(),
        ir,
        roots,
        seeds: Vec::new(),
    })
}

fn collect_json(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_json(root, &p, out)?;
        } else if p.extension().is_some_and(|e| e == "json") {
            let rel = p.strip_prefix(root).unwrap_or(&p);
            out.push((rel.to_string_lossy().replace('\\', "/"), p.clone()));
        }
    }
    Ok(())
}

/// How to compare.
#[derive(Debug, Clone)]
pub struct Options {
    /// Valid instances generated per type and direction.
    pub samples: usize,
    pub seed: u64,
    /// The old consumer's policy on properties its schema does not declare.
    pub unknown: Unknown,
    /// Versions given on the command line (override what the schemas declare).
    pub old_version: Option<Version>,
    pub new_version: Option<Version>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            samples: 300,
            seed: 1,
            unknown: Unknown::Schema,
            old_version: None,
            new_version: None,
        }
    }
}

/// Whether one role survives the change, for one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Compatible,
    /// A change predicts a break, but no instance showed it.
    Unconfirmed,
    Incompatible,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub outcome: Outcome,
    /// Valid instances of the producing side run through the consuming side.
    pub checked: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Counterexample>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Changed,
    Added,
    Removed,
}

/// The wire report of one named type.
#[derive(Debug, Clone, Serialize)]
pub struct TypeReport {
    /// `file#pointer` of the type's schema (in the new version when it exists).
    pub key: String,
    pub name: String,
    /// The root type of a schema file (a message on the wire).
    pub root: bool,
    pub status: Status,
    pub changes: Vec<Change>,
    /// Old producers → new consumers.
    pub reader: Verdict,
    /// New producers → old consumers.
    pub writer: Verdict,
}

/// The versions declared and required.
#[derive(Debug, Clone, Serialize)]
pub struct VersionReport {
    pub old: Option<Version>,
    pub new: Option<Version>,
    /// Where each version was found (`flag`, `file#/properties/schema_version/const`, …).
    pub old_source: Option<String>,
    pub new_source: Option<String>,
    /// The bump the declared versions make (`null` when either is unknown or not later).
    pub declared: Option<Bump>,
    /// The bump seed 002's wire rules require.
    pub wire: Bump,
    /// The bump each generated package needs under its language's semver rules (the packages'
    /// own versions; not compared with the schema version).
    pub api: BTreeMap<String, Bump>,
    /// The bump the schema version needs: `wire`.
    pub required: Bump,
    /// Whether the declared bump is at least the required one.
    pub ok: bool,
    pub message: String,
}

/// Everything `ctxgen diff` found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub old: String,
    pub new: String,
    /// `schema` or `ignore`.
    pub unknown_fields: &'static str,
    pub types: Vec<TypeReport>,
    pub unchanged_types: usize,
    pub api: Vec<api::ApiChange>,
    pub version: VersionReport,
    /// Instances run through a validator, over all types and directions.
    pub instances_checked: usize,
}

impl Report {
    /// Whether some role breaks (confirmed or not).
    pub fn wire_breaking(&self) -> bool {
        self.types.iter().any(|t| {
            t.reader.outcome != Outcome::Compatible || t.writer.outcome != Outcome::Compatible
        })
    }
}

/// Keys (`file#pointer`) for each type; files are matched by relative path, and a lone
/// unmatched file on each side is matched with the other (`app-1.json` ↔ `app-2.json`).
fn keys(old: &Ir, new: &Ir) -> (Vec<String>, Vec<String>) {
    let new_rels: HashSet<&str> = new.modules.iter().map(|m| m.rel.as_str()).collect();
    let old_rels: HashSet<&str> = old.modules.iter().map(|m| m.rel.as_str()).collect();
    let lone_old: Vec<&str> = old_rels
        .iter()
        .copied()
        .filter(|r| !new_rels.contains(r))
        .collect();
    let lone_new: Vec<&str> = new_rels
        .iter()
        .copied()
        .filter(|r| !old_rels.contains(r))
        .collect();
    let rename: Option<(String, String)> = match (lone_old.as_slice(), lone_new.as_slice()) {
        ([o], [n]) => Some((o.to_string(), n.to_string())),
        _ => None,
    };
    // A type's document: its module's file, or, for a type of a document the schemas only
    // reference (a bundled meta-schema, a file outside the named ones), that document, which
    // may hold a type at the same pointer as the module's own (the meta-schema's root).
    let prefix = |ir: &Ir| {
        ir.types.iter().find_map(|ty| {
            let rel = &ir.modules[ty.module].rel;
            ty.origin
                .file
                .strip_suffix(rel.as_str())
                .map(str::to_string)
        })
    };
    let (old_prefix, new_prefix) = (prefix(old), prefix(new));
    let key = |ir: &Ir, t: usize, old_side: bool| {
        let ty = &ir.types[t];
        let module_rel = &ir.modules[ty.module].rel;
        let root = if old_side { &old_prefix } else { &new_prefix };
        let doc = root
            .as_deref()
            .and_then(|p| ty.origin.file.strip_prefix(p))
            .unwrap_or(&ty.origin.file);
        if doc != module_rel {
            return format!("{doc}#{}", ty.origin.pointer);
        }
        let mut rel = module_rel.clone();
        if let Some((o, n)) = &rename {
            if old_side && rel == *o {
                rel = n.clone();
            }
        }
        let suffix = if ty.variant_of.is_some() {
            format!(" ({})", ty.raw_name)
        } else {
            String::new()
        };
        format!("{rel}#{}{suffix}", ty.origin.pointer)
    };
    (
        (0..old.types.len()).map(|t| key(old, t, true)).collect(),
        (0..new.types.len()).map(|t| key(new, t, false)).collect(),
    )
}

/// A document's root type: a message. The root of a document the schemas only reference (a
/// bundled meta-schema) is not one.
pub(crate) fn is_message(ir: &Ir, t: usize) -> bool {
    let ty = &ir.types[t];
    ty.origin.pointer.is_empty() && ty.origin.file.ends_with(ir.modules[ty.module].rel.as_str())
}

/// The property that carries a message's schema version.
pub const VERSION_FIELD: &str = "schema_version";

/// The fixed value (`const`, or a single `enum` value) the version field of a message has.
fn version_value(prog: &Program, node: NodeId) -> Option<(String, Value)> {
    use crate::ir::Check;
    let mut stack = vec![node];
    let mut seen = HashSet::new();
    while let Some(n) = stack.pop() {
        if !seen.insert(n) || seen.len() > 32 {
            continue;
        }
        for c in &prog.nodes.get(n)?.checks {
            match c {
                Check::Ref(t) => stack.push(*t),
                Check::Properties(ps) => {
                    let Some((_, f)) = ps.iter().find(|p| p.0 == VERSION_FIELD) else {
                        continue;
                    };
                    let mut inner = vec![*f];
                    while let Some(m) = inner.pop() {
                        for c in &prog.nodes.get(m)?.checks {
                            match c {
                                Check::Const(v) => return Some((VERSION_FIELD.into(), v.clone())),
                                Check::Enum(vs) if vs.len() == 1 => {
                                    return Some((VERSION_FIELD.into(), vs[0].clone()))
                                }
                                Check::Ref(t) if inner.len() < 8 => inner.push(*t),
                                _ => {}
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// A canonical text of everything a node reaches: equal texts validate alike.
pub fn fingerprint(prog: &Program, node: NodeId) -> String {
    let mut order = vec![node];
    let mut index: HashMap<NodeId, usize> = HashMap::from([(node, 0)]);
    let mut i = 0;
    while i < order.len() {
        for c in &prog.nodes[order[i]].checks {
            for ch in c.children() {
                if let std::collections::hash_map::Entry::Vacant(e) = index.entry(ch) {
                    e.insert(order.len());
                    order.push(ch);
                }
            }
        }
        i += 1;
    }
    let mut map = vec![usize::MAX; prog.nodes.len()];
    for (n, i) in &index {
        map[*n] = *i;
    }
    let mut out = String::new();
    for n in &order {
        for c in &prog.nodes[*n].checks {
            let mut c = c.clone();
            c.remap(&map);
            out.push_str(&format!("{c:?};"));
            let pats: Vec<usize> = match &c {
                crate::ir::Check::Pattern(p) => vec![*p],
                crate::ir::Check::PatternProperties(ps) => ps.iter().map(|p| p.0).collect(),
                crate::ir::Check::AdditionalProperties { patterns, .. }
                | crate::ir::Check::NoAdditionalProperties { patterns, .. } => patterns.clone(),
                _ => Vec::new(),
            };
            for p in pats {
                out.push_str(&prog.patterns[p].source);
                out.push('\u{0}');
            }
        }
        out.push('\n');
    }
    out
}

fn verdict(search: confirm::Search, changes: &[Change], role: fn(&Change) -> Effect) -> Verdict {
    let outcome = if search.counterexample.is_some() {
        Outcome::Incompatible
    } else if changes.iter().any(|c| role(c) != Effect::Safe) {
        Outcome::Unconfirmed
    } else {
        Outcome::Compatible
    };
    Verdict {
        outcome,
        checked: search.checked,
        counterexample: search.counterexample,
    }
}

fn absent(outcome: Outcome) -> Verdict {
    Verdict {
        outcome,
        checked: 0,
        counterexample: None,
    }
}

/// Compares two versions of a schema set.
pub fn diff(old: &Loaded, new: &Loaded, opts: &Options) -> Report {
    let (ko, kn) = keys(&old.ir, &new.ir);
    let old_interp = Interp::new(&old.ir.program, opts.unknown);
    let old_strict = Interp::new(&old.ir.program, Unknown::Schema);
    let new_interp = Interp::new(&new.ir.program, Unknown::Schema);
    let so = Side::new(&old.ir, &ko);
    let sn = Side::new(&new.ir, &kn);
    let names_old = crate::ir::names::type_names(crate::Lang::Rust, &old.ir);
    let names_new = crate::ir::names::type_names(crate::Lang::Rust, &new.ir);
    let new_by_key: HashMap<&str, usize> = kn
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let old_by_key: HashMap<&str, usize> = ko
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut types = Vec::new();
    let mut unchanged = 0;
    let mut checked = 0;
    for (t, key) in ko.iter().enumerate() {
        let is_root = is_message(&old.ir, t);
        let Some(&u) = new_by_key.get(key.as_str()) else {
            // A removed message breaks both roles; a removed definition is an API change only.
            let outcome = if is_root {
                Outcome::Incompatible
            } else {
                Outcome::Compatible
            };
            let change = Change {
                path: String::new(),
                class: "type-removed",
                detail: format!("`{}` no longer exists", names_old[t]),
                reader: if is_root {
                    Effect::Breaking
                } else {
                    Effect::Safe
                },
                writer: Effect::Safe,
            };
            types.push(TypeReport {
                key: key.clone(),
                name: names_old[t].clone(),
                root: is_root,
                status: Status::Removed,
                changes: vec![change],
                reader: absent(outcome),
                writer: absent(Outcome::Compatible),
            });
            continue;
        };
        let (on, nn) = (old.ir.types[t].node, new.ir.types[u].node);
        if fingerprint(&old.ir.program, on) == fingerprint(&new.ir.program, nn) {
            unchanged += 1;
            continue;
        }
        let mut cmp = Compare::new(&so, &sn, opts.unknown == Unknown::Ignore);
        cmp.types(on, nn);
        let changes = cmp.changes;
        let seed = opts.seed ^ (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (seeds_old, seeds_new): (&[Value], &[Value]) = if is_root {
            (&old.seeds, &new.seeds)
        } else {
            (&[], &[])
        };
        // The version field of a message: consumers check it by major version (seed 002), so
        // producers of either version write their own, and the field's own change is no finding.
        let (pin_new, pin_old) = if is_root {
            (
                version_value(&new.ir.program, nn),
                version_value(&old.ir.program, on),
            )
        } else {
            (None, None)
        };
        let mut changes = changes;
        if pin_new.is_some() || pin_old.is_some() {
            let field = format!("/{VERSION_FIELD}");
            changes.retain(|c| c.path != field);
        }
        let party = |interp, node, label| Party {
            interp,
            node,
            label,
        };
        let reader = confirm::search_pinned(
            &party(&old_strict, on, "old"),
            &party(&new_interp, nn, "new"),
            seeds_old,
            opts.samples,
            seed,
            pin_new.as_ref(),
        );
        let writer = confirm::search_pinned(
            &party(&new_interp, nn, "new"),
            &party(&old_interp, on, "old"),
            seeds_new,
            opts.samples,
            seed.wrapping_add(1),
            pin_old.as_ref(),
        );
        checked += reader.checked + writer.checked;
        let reader = verdict(reader, &changes, |c| c.reader);
        let writer = verdict(writer, &changes, |c| c.writer);
        // Restructured (or changed only in the version field) types stay until `reach` has
        // looked at what they contain.
        types.push(TypeReport {
            key: key.clone(),
            name: names_new[u].clone(),
            root: is_root,
            status: Status::Changed,
            changes,
            reader,
            writer,
        });
    }
    for (u, key) in kn.iter().enumerate() {
        if old_by_key.contains_key(key.as_str()) {
            continue;
        }
        let is_root = is_message(&new.ir, u);
        types.push(TypeReport {
            key: key.clone(),
            name: names_new[u].clone(),
            root: is_root,
            status: Status::Added,
            changes: vec![Change {
                path: String::new(),
                class: "type-added",
                detail: format!("`{}` is new", names_new[u]),
                reader: Effect::Safe,
                writer: Effect::Safe,
            }],
            reader: absent(Outcome::Compatible),
            writer: absent(Outcome::Compatible),
        });
    }
    reach::propagate(&mut types, &new.ir, &kn);
    let before = types.len();
    types.retain(|t| {
        !(t.changes.is_empty()
            && t.reader.outcome == Outcome::Compatible
            && t.writer.outcome == Outcome::Compatible)
    });
    unchanged += before - types.len();
    let api = api::compare(&old.ir, &new.ir, &ko, &kn);
    let mut report = Report {
        old: old.label.clone(),
        new: new.label.clone(),
        unknown_fields: match opts.unknown {
            Unknown::Schema => "schema",
            Unknown::Ignore => "ignore",
        },
        types,
        unchanged_types: unchanged,
        api,
        version: VersionReport {
            old: None,
            new: None,
            old_source: None,
            new_source: None,
            declared: None,
            wire: Bump::Patch,
            api: BTreeMap::new(),
            required: Bump::Patch,
            ok: true,
            message: String::new(),
        },
        instances_checked: checked,
    };
    report.version = versions(&report, old, new, opts);
    report
}

fn versions(r: &Report, old: &Loaded, new: &Loaded, opts: &Options) -> VersionReport {
    let pick = |flag: &Option<Version>, l: &Loaded| -> Option<(Version, String)> {
        if let Some(v) = flag {
            return Some((v.clone(), "command line".into()));
        }
        version::declared(&l.roots).or_else(|| {
            let names: Vec<&String> = l.roots.iter().map(|r| &r.0).collect();
            match names.as_slice() {
                [one] => version::version_in_name(one).map(|v| (v, format!("file name {one}"))),
                _ => None,
            }
        })
    };
    let o = pick(&opts.old_version, old);
    let n = pick(&opts.new_version, new);
    let wire = if r.wire_breaking() {
        Bump::Major
    } else if r.types.is_empty() {
        Bump::Patch
    } else {
        Bump::Minor
    };
    let mut api = BTreeMap::new();
    for lang in ["rust", "typescript", "python"] {
        let changes: Vec<&api::ApiChange> = r.api.iter().filter(|c| c.lang == lang).collect();
        let b = if changes.iter().any(|c| c.breaking) {
            Bump::Major
        } else if changes.is_empty() {
            Bump::Patch
        } else {
            Bump::Minor
        };
        let b = match &o {
            Some((v, _)) => v.semver_bump(b),
            None => b,
        };
        api.insert(lang.to_string(), b);
    }
    // The schema version follows the wire rules; each package's own version follows `api`.
    let required = wire;
    let declared = match (&o, &n) {
        (Some((a, _)), Some((b, _))) => a.bump_to(b),
        _ => None,
    };
    let (ok, message) = match (&o, &n, declared) {
        (Some(_), Some(_), Some(d)) if d >= required => (true, format!("the declared {d} bump covers the required {required} bump")),
        (Some(_), Some(_), Some(d)) => (false, format!("the declared bump is {d}, the change requires {required}")),
        (Some((a, _)), Some((b, _)), None) if required == Bump::Patch => (true, format!("no change that needs a release ({a} → {b})")),
        (Some((a, _)), Some((b, _)), None) => (false, format!("{b} is not later than {a}; the change requires a {required} bump")),
        _ if required == Bump::Patch => (true, "no change that needs a release".into()),
        _ => (false, format!("the change requires a {required} bump, and no version is declared (pass --old-version and --new-version, or declare schema_version)")),
    };
    VersionReport {
        old: o.as_ref().map(|x| x.0.clone()),
        new: n.as_ref().map(|x| x.0.clone()),
        old_source: o.map(|x| x.1),
        new_source: n.map(|x| x.1),
        declared,
        wire,
        api,
        required,
        ok,
        message,
    }
}
