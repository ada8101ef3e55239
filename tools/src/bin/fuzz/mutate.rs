//! Making a mutant from its seed: pick seed schemas, name the files, apply a few schema-aware
//! mutations, sometimes link files into `$ref` cycles or corrupt the bytes.

use serde_json::{json, Map, Value};

use super::fixture::MARKER;
use super::hostile;
use super::seeds::Seeds;
use super::tree::{self, Path, Seg};
use super::{Doc, Mutant, Rng, SchemaFile};

/// Most paths a mutation looks at in one document (SchemaStore files can be large).
const LIMIT: usize = 200_000;

pub fn mutant(seeds: &Seeds, seed: u64) -> Mutant {
    let mut rng = Rng::new(seed);
    let (origin, first) = seeds.pick(&mut rng);
    let mut notes = Vec::new();
    let mut docs = vec![first];
    if rng.chance(0.2) {
        for _ in 0..1 + rng.below(2) {
            let (o, v) = seeds.pick_small(&mut rng);
            notes.push(format!("add file from {o}"));
            docs.push(Doc::Json(v));
        }
    }
    let names = file_names(&mut rng, docs.len(), &mut notes);
    let mut files: Vec<SchemaFile> = names
        .into_iter()
        .zip(docs)
        .map(|(name, doc)| SchemaFile { name, doc })
        .collect();
    let count = 1 + rng.below(3) + usize::from(rng.chance(0.3)) * rng.below(4);
    for _ in 0..count {
        let i = rng.below(files.len());
        if let Doc::Json(v) = &mut files[i].doc {
            let note = mutate(&mut rng, v);
            notes.push(format!("{}: {note}", files[i].name));
        }
    }
    if files.len() >= 2 && rng.chance(0.6) {
        cross_refs(&mut rng, &mut files, &mut notes);
    }
    if rng.chance(0.03) {
        let i = rng.below(files.len());
        let note = corrupt(&mut rng, &mut files[i].doc);
        notes.push(format!("{}: {note}", files[i].name));
    }
    Mutant {
        seed,
        origin,
        notes,
        files,
    }
}

fn file_names(rng: &mut Rng, n: usize, notes: &mut Vec<String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if n >= 2 && rng.chance(0.3) {
        let (a, b) = rng.pick(hostile::COLLIDING_FILES);
        notes.push(format!("colliding file names {a:?} and {b:?}"));
        names.push(a.to_string());
        names.push(b.to_string());
    }
    while names.len() < n {
        let i = names.len();
        let mut name = if n == 1 && rng.chance(0.8) {
            "schema.json".to_string()
        } else {
            hostile::file_name(rng, i)
        };
        if names.contains(&name) {
            name = format!("f{i}.json");
        }
        names.push(name);
    }
    if names
        .iter()
        .any(|n| !n.chars().all(|c| c.is_ascii_lowercase() || c == '.'))
    {
        notes.push(format!("file names {names:?}"));
    }
    names
}

/// Applies one random mutation; returns what it did.
pub fn mutate(rng: &mut Rng, doc: &mut Value) -> String {
    let schemas = tree::schema_paths(doc, LIMIT);
    if schemas.is_empty() {
        return "nothing (the root is not a schema)".into();
    }
    let at = rng.pick(&schemas).clone();
    let ptr = tree::pointer(&at);
    let Some(node) = tree::get_mut(doc, &at) else {
        return "nothing (no subschema)".into();
    };
    match rng.below(100) {
        0..=7 => delete(rng, doc),
        8..=13 => duplicate(rng, doc),
        14..=17 => swap(rng, doc, &schemas),
        18..=25 => change_type(rng, doc),
        26..=33 => {
            let target = if rng.chance(0.1) {
                format!("#/$defs/{}", hostile::string(rng))
            } else {
                format!(
                    "#{}",
                    tree::encode(&tree::pointer(rng.pick::<Path>(&schemas)))
                )
            };
            if rng.chance(0.5) || !node.is_object() {
                *node = json!({ "$ref": target });
            } else if let Some(m) = node.as_object_mut() {
                m.insert("$ref".into(), json!(target));
            }
            format!("$ref {target:?} at {ptr:?}")
        }
        34..=39 => {
            let old = node.take();
            let (how, new) = match rng.below(6) {
                0 => ("allOf", json!({ "allOf": [old] })),
                1 => ("anyOf", json!({ "anyOf": [old] })),
                2 => ("oneOf", json!({ "oneOf": [old, old] })),
                3 => ("not not", json!({ "not": { "not": old } })),
                4 => ("if/then", json!({ "if": old, "then": old })),
                _ => ("allOf twice", json!({ "allOf": [old, old] })),
            };
            *node = new;
            format!("wrap {ptr:?} in {how}")
        }
        40..=42 => {
            let shape = *rng.pick(&[
                "ref-chain",
                "allof-chain",
                "anyof-chain",
                "oneof-chain",
                "property-chain",
                "items-chain",
                "nested-allof",
                "nested-properties",
                "nested-items",
                "properties",
            ]);
            let length = *rng.pick(&[2usize, 5, 20, 60, 100, 130, 500, 1000, 10_000]);
            let leaf = node.take();
            *node = json!({ MARKER: { "shape": shape, "length": length, "leaf": leaf } });
            format!("{shape} of {length} at {ptr:?}")
        }
        43 => {
            let length = *rng.pick(&[10usize, 1000, 20_000, 100_000, 100_000]);
            let values = *rng.pick(&["strings", "mixed"]);
            *node = json!({ MARKER: { "shape": "enum", "length": length, "values": values } });
            format!("enum of {length} {values} at {ptr:?}")
        }
        44..=55 => hostile_name(rng, doc, &schemas),
        56..=59 => collide(rng, doc, &schemas),
        60..=63 => {
            let h = hostile::string(rng);
            let t = rng
                .pick(&[
                    json!([]),
                    json!(["string", "string"]),
                    json!("nonsense"),
                    json!(["null"]),
                    json!([h]),
                    json!(5),
                    json!({}),
                    json!(["integer", "number"]),
                    json!(["object", "array", "null", "string", "boolean", "number"]),
                ])
                .clone();
            set(node, "type", t.clone());
            format!("type {t} at {ptr:?}")
        }
        64..=69 => {
            let (k, v) = hostile::extension(rng);
            set(node, &k, v.clone());
            format!("{k}: {v} at {ptr:?}")
        }
        70..=72 => {
            let b = rng.chance(0.5);
            *node = json!(b);
            format!("{b} schema at {ptr:?}")
        }
        73..=79 => cycle(rng, doc, &at),
        80..=82 => dialect(rng, doc, &at),
        83..=85 => {
            let defs = rng
                .pick(&[
                    json!({}),
                    json!([]),
                    json!(null),
                    json!({"": {}}),
                    json!({"A": 5}),
                ])
                .clone();
            set(doc, "$defs", defs.clone());
            format!("root $defs {defs}")
        }
        _ => {
            let (k, v) = hostile::keyword(rng);
            set(node, &k, v.clone());
            format!("{k}: {v} at {ptr:?}")
        }
    }
}

/// Sets `key` on an object node, turning a non-object into `{}` first.
fn set(node: &mut Value, key: &str, v: Value) {
    if !node.is_object() {
        *node = json!({});
    }
    if let Some(m) = node.as_object_mut() {
        m.insert(key.to_string(), v);
    }
}

fn delete(rng: &mut Rng, doc: &mut Value) -> String {
    let paths = tree::container_paths(doc, LIMIT);
    if paths.is_empty() {
        return "delete nothing".into();
    }
    let p = rng.pick(&paths).clone();
    let ptr = tree::pointer(&p);
    match tree::get_mut(doc, &p) {
        Some(Value::Object(m)) if !m.is_empty() => {
            let k = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            m.shift_remove(&k);
            format!("delete {k:?} of {ptr:?}")
        }
        Some(Value::Array(a)) if !a.is_empty() => {
            let i = rng.below(a.len());
            a.remove(i);
            format!("delete item {i} of {ptr:?}")
        }
        _ => "delete nothing".into(),
    }
}

fn duplicate(rng: &mut Rng, doc: &mut Value) -> String {
    let paths = tree::container_paths(doc, LIMIT);
    if paths.is_empty() {
        return "duplicate nothing".into();
    }
    let p = rng.pick(&paths).clone();
    let ptr = tree::pointer(&p);
    let name = hostile::string(rng);
    match tree::get_mut(doc, &p) {
        Some(Value::Object(m)) if !m.is_empty() => {
            let (k, v) = m
                .iter()
                .nth(rng.below(m.len()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .unwrap_or_default();
            let new = if rng.chance(0.5) {
                name
            } else {
                format!("{k}_copy")
            };
            m.insert(new.clone(), v);
            format!("copy {k:?} of {ptr:?} as {new:?}")
        }
        Some(Value::Array(a)) if !a.is_empty() => {
            let i = rng.below(a.len());
            let v = a[i].clone();
            a.insert(i, v);
            format!("duplicate item {i} of {ptr:?}")
        }
        _ => "duplicate nothing".into(),
    }
}

fn swap(rng: &mut Rng, doc: &mut Value, schemas: &[Path]) -> String {
    let a = rng.pick(schemas).clone();
    let b = rng.pick(schemas).clone();
    if a.starts_with(&b) || b.starts_with(&a) {
        return "swap nothing".into();
    }
    let va = tree::get(doc, &a).cloned().unwrap_or(Value::Null);
    let vb = tree::get(doc, &b).cloned().unwrap_or(Value::Null);
    if let Some(n) = tree::get_mut(doc, &a) {
        *n = vb;
    }
    if let Some(n) = tree::get_mut(doc, &b) {
        *n = va;
    }
    format!("swap {:?} and {:?}", tree::pointer(&a), tree::pointer(&b))
}

fn change_type(rng: &mut Rng, doc: &mut Value) -> String {
    let paths = tree::container_paths(doc, LIMIT);
    let objects: Vec<&Path> = paths
        .iter()
        .filter(|p| tree::get(doc, p).is_some_and(|v| v.as_object().is_some_and(|m| !m.is_empty())))
        .collect();
    if objects.is_empty() {
        return "retype nothing".into();
    }
    let p = (*rng.pick(&objects)).clone();
    let Some(Value::Object(m)) = tree::get_mut(doc, &p) else {
        return "retype nothing".into();
    };
    let k = m
        .keys()
        .nth(rng.below(m.len()))
        .cloned()
        .unwrap_or_default();
    let v = hostile::value(rng, m.get(&k));
    m.insert(k.clone(), v.clone());
    format!("{k:?} of {:?} := {v}", tree::pointer(&p))
}

fn hostile_name(rng: &mut Rng, doc: &mut Value, schemas: &[Path]) -> String {
    let name = hostile::string(rng);
    let maps = tree::name_maps(doc, schemas);
    match rng.below(5) {
        0 | 1 if !maps.is_empty() => {
            let map_path = rng.pick(&maps).clone();
            let Some(Value::Object(m)) = tree::get(doc, &map_path) else {
                return "rename nothing".into();
            };
            let old = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            if m.contains_key(&name) {
                return "rename nothing".into();
            }
            let renamed: Map<String, Value> = m
                .iter()
                .map(|(k, v)| (if *k == old { name.clone() } else { k.clone() }, v.clone()))
                .collect();
            let mut old_path = map_path.clone();
            old_path.push(Seg::Key(old.clone()));
            let mut new_path = map_path.clone();
            new_path.push(Seg::Key(name.clone()));
            if let Some(n) = tree::get_mut(doc, &map_path) {
                *n = Value::Object(renamed);
            }
            let old_ref = format!("#{}", tree::encode(&tree::pointer(&old_path)));
            let new_ref = format!("#{}", tree::encode(&tree::pointer(&new_path)));
            tree::rewrite_refs(doc, &old_ref, &new_ref);
            let parent = &map_path[..map_path.len() - 1];
            if let Some(Value::Array(req)) =
                tree::get_mut(doc, parent).and_then(|p| p.get_mut("required"))
            {
                for r in req.iter_mut().filter(|r| r.as_str() == Some(old.as_str())) {
                    *r = json!(name);
                }
            }
            format!("rename {:?} to {name:?}", tree::pointer(&old_path))
        }
        2 => {
            let at = rng.pick(schemas).clone();
            let node = tree::get_mut(doc, &at).expect("schema path");
            set_property(node, &name, json!({"type": "string"}), rng.chance(0.5));
            format!("property {name:?} at {:?}", tree::pointer(&at))
        }
        3 => {
            let at = rng.pick(schemas).clone();
            let values: Vec<Value> = (0..1 + rng.below(4))
                .map(|_| json!(hostile::string(rng)))
                .collect();
            let node = tree::get_mut(doc, &at).expect("schema path");
            set(node, "enum", json!(values));
            format!("enum {values:?} at {:?}", tree::pointer(&at))
        }
        _ => {
            let at = rng.pick(schemas).clone();
            let key = *rng.pick(&[
                "title",
                "description",
                "$comment",
                "default",
                "examples",
                "const",
                "pattern",
                "format",
                "$anchor",
                "contentMediaType",
            ]);
            let v = if key == "examples" {
                json!([name])
            } else {
                json!(name)
            };
            let node = tree::get_mut(doc, &at).expect("schema path");
            set(node, key, v);
            format!("{key} {name:?} at {:?}", tree::pointer(&at))
        }
    }
}

fn set_property(node: &mut Value, name: &str, schema: Value, required: bool) {
    if !node.is_object() {
        *node = json!({});
    }
    let m = node.as_object_mut().expect("object");
    let props = m.entry("properties").or_insert_with(|| json!({}));
    if !props.is_object() {
        *props = json!({});
    }
    props
        .as_object_mut()
        .expect("object")
        .insert(name.to_string(), schema);
    if required {
        let req = m.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(a) = req {
            a.push(json!(name));
        }
    }
}

fn collide(rng: &mut Rng, doc: &mut Value, schemas: &[Path]) -> String {
    let maps = tree::name_maps(doc, schemas);
    let map_path = if maps.is_empty() || rng.chance(0.3) {
        let mut p = rng.pick(schemas).clone();
        let node = tree::get_mut(doc, &p).expect("schema path");
        let key = if rng.chance(0.5) {
            "properties"
        } else {
            "$defs"
        };
        set_property(node, "fooBar", json!({"type": "integer"}), false);
        if key == "$defs" {
            let m = node.as_object_mut().expect("object");
            let props = m.shift_remove("properties").unwrap_or_default();
            m.insert("$defs".into(), props);
        }
        p.push(Seg::Key(key.into()));
        p
    } else {
        rng.pick(&maps).clone()
    };
    let Some(Value::Object(m)) = tree::get_mut(doc, &map_path) else {
        return "collide nothing".into();
    };
    if m.is_empty() {
        return "collide nothing".into();
    }
    let (k, v) = m
        .iter()
        .nth(rng.below(m.len()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or_default();
    let mut added = Vec::new();
    for c in hostile::collisions(&k) {
        if rng.chance(0.5) && !m.contains_key(&c) {
            m.insert(c.clone(), v.clone());
            added.push(c);
        }
    }
    format!(
        "names colliding with {k:?} in {:?}: {added:?}",
        tree::pointer(&map_path)
    )
}

/// Adds `name` to the root `$defs`.
fn add_def(doc: &mut Value, name: &str, schema: Value) {
    if !doc.is_object() {
        *doc = json!({ "allOf": [doc.take()] });
    }
    let m = doc.as_object_mut().expect("object");
    let defs = m.entry("$defs").or_insert_with(|| json!({}));
    if !defs.is_object() {
        *defs = json!({});
    }
    defs.as_object_mut()
        .expect("object")
        .insert(name.into(), schema);
}

fn cycle(rng: &mut Rng, doc: &mut Value, at: &Path) -> String {
    let ptr = tree::pointer(at);
    let own = format!("#{}", tree::encode(&ptr));
    let kind = rng.below(6);
    let new = match kind {
        0 => json!({ "allOf": [{ "$ref": "#" }] }),
        1 => {
            add_def(
                doc,
                "CycA",
                json!({ "allOf": [{ "$ref": "#/$defs/CycB" }] }),
            );
            add_def(
                doc,
                "CycB",
                json!({ "allOf": [{ "$ref": "#/$defs/CycA" }] }),
            );
            json!({ "$ref": "#/$defs/CycA" })
        }
        2 => {
            add_def(
                doc,
                "Nest",
                json!({ "type": "array", "items": { "$ref": "#/$defs/Nest" } }),
            );
            json!({ "$ref": "#/$defs/Nest" })
        }
        3 => json!({ "default": hostile::value(rng, None), "$ref": own }),
        4 => json!({ "$ref": own }),
        _ => {
            add_def(
                doc,
                "Tree",
                json!({
                    "type": "object",
                    "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/Tree" } },
                                    "self": { "$ref": "#/$defs/Tree" } },
                    "anyOf": [{ "$ref": "#/$defs/Tree" }, { "type": "object" }]
                }),
            );
            json!({ "$ref": "#/$defs/Tree" })
        }
    };
    // The root may have been wrapped by `add_def`; the path is then gone, which is fine.
    if let Some(node) = tree::get_mut(doc, at) {
        *node = new;
    }
    format!("cycle kind {kind} at {ptr:?}")
}

fn dialect(rng: &mut Rng, doc: &mut Value, at: &Path) -> String {
    let (key, v, root) = match rng.below(4) {
        0 => (
            "$schema",
            json!(rng.pick(&[
                "https://json-schema.org/draft/2020-12/schema",
                "https://json-schema.org/draft/2019-09/schema",
                "http://json-schema.org/draft-07/schema#",
                "http://json-schema.org/draft-04/schema#",
                "http://json-schema.org/draft-03/schema#",
                "https://example.com/custom",
                "",
            ])),
            true,
        ),
        1 => ("$schema", hostile::value(rng, None), true),
        2 => (
            "$id",
            json!(rng.pick(&[
                "urn:x",
                "../x.json",
                "#frag",
                "sub/",
                "http://localhost:1234/",
                "a.json",
                ""
            ])),
            rng.chance(0.5),
        ),
        _ => ("$id", json!(hostile::string(rng)), rng.chance(0.5)),
    };
    let node = if root {
        Some(&mut *doc)
    } else {
        tree::get_mut(doc, at)
    };
    if let Some(node) = node {
        set(node, key, v.clone());
    }
    format!("{key} {v} at {}", if root { "root" } else { "a subschema" })
}

/// Makes two files refer to each other (usually dropping their `$id`s, so that the references
/// resolve relative to the files).
fn cross_refs(rng: &mut Rng, files: &mut [SchemaFile], notes: &mut Vec<String>) {
    let a = rng.below(files.len());
    let b = (a + 1 + rng.below(files.len() - 1)) % files.len();
    let drop_ids = rng.chance(0.8);
    for (from, to) in [(a, b), (b, a)] {
        let target_name = files[to].name.clone();
        let target_path = match &files[to].doc {
            Doc::Json(v) if rng.chance(0.5) => {
                let paths = tree::schema_paths(v, LIMIT);
                if paths.is_empty() {
                    Vec::new()
                } else {
                    rng.pick(&paths).clone()
                }
            }
            _ => Vec::new(),
        };
        let r = tree::file_ref(&files[from].name, &target_name, &target_path);
        let Doc::Json(doc) = &mut files[from].doc else {
            continue;
        };
        if drop_ids {
            if let Some(m) = doc.as_object_mut() {
                m.shift_remove("$id");
                m.shift_remove("id");
            }
        }
        let paths = tree::schema_paths(doc, LIMIT);
        let at = if paths.is_empty() {
            Vec::new()
        } else {
            rng.pick(&paths).clone()
        };
        if let Some(node) = tree::get_mut(doc, &at) {
            if rng.chance(0.5) {
                *node = json!({ "allOf": [{ "$ref": r }] });
            } else {
                *node = json!({ "$ref": r });
            }
        }
        notes.push(format!(
            "{}: $ref {r:?} at {:?}",
            files[from].name,
            tree::pointer(&at)
        ));
    }
}

/// Damages the bytes of a file.
fn corrupt(rng: &mut Rng, doc: &mut Doc) -> String {
    let mut bytes = match doc {
        Doc::Json(v) => super::fixture::render(v).into_bytes(),
        Doc::Raw(b) => std::mem::take(b),
    };
    let what = match rng.below(10) {
        0 => {
            let n = rng.below(bytes.len() + 1);
            bytes.truncate(n);
            format!("truncate to {n} bytes")
        }
        1 => {
            bytes.splice(0..0, [0xEF, 0xBB, 0xBF]);
            "byte order mark".into()
        }
        2 => {
            let i = rng.below(bytes.len() + 1);
            bytes.insert(i, *rng.pick(&[0xFF, 0xC0, 0x80, 0x00]));
            format!("bad byte at {i}")
        }
        3 => {
            bytes = b"{\"type\": \"object\", \"type\": \"string\", \"properties\": {\"a\": {}, \"a\": 1}}".to_vec();
            "duplicate keys".into()
        }
        4 => {
            bytes =
                b"{\"enum\": [NaN, Infinity, 1e400, -0, 123456789012345678901234567890]}".to_vec();
            "non-finite numbers".into()
        }
        5 => {
            let n = *rng.pick(&[129usize, 10_000, 100_000]);
            bytes = format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
            format!("{n} nested arrays")
        }
        6 => {
            bytes = Vec::new();
            "empty file".into()
        }
        7 => {
            bytes = b"  \n\t ".to_vec();
            "whitespace only".into()
        }
        8 => {
            bytes.extend_from_slice(b" {} trailing");
            "trailing garbage".into()
        }
        _ => {
            bytes = b"{\"properties\": {\"a\": {\"type\": \"string\",},},}".to_vec();
            "trailing commas".into()
        }
    };
    *doc = Doc::Raw(bytes);
    what
}
