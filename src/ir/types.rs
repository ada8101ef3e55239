//! Derives the type model from schemas. Types are a sound over-approximation: every instance the
//! validator accepts deserializes; the validator, not the type, is exact.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::compile::Compiler;
use super::fits::fits;
use super::model::{
    Field, JsonKind, Module, Struct, Ty, TypeDef, TypeId, TypeKind, Union, Variant,
};
use crate::error::{Diagnostic, Error, Result, Severity};
use crate::schema::{pointer, Loc};

mod pinned;
mod props;
mod shape;
mod variants;

pub struct TypeBuilder<'c, 's> {
    pub comp: &'c mut Compiler<'s>,
    pub types: Vec<TypeDef>,
    pub modules: Vec<Module>,
    named: HashMap<Loc, TypeId>,
    shapes: HashMap<Loc, Shape>,
    /// Where `follow_refs` ends for each location it passed.
    followed: HashMap<Loc, Loc>,
    /// The properties collected at each location (see `collect_props`).
    collected: HashMap<Loc, std::rc::Rc<props::Collected>>,
    /// Whether each location pins the JSON type (see `pinned`).
    pinned: HashMap<Loc, bool>,
    pub diagnostics: Vec<Diagnostic>,
    depth: usize,
    /// How many type bodies are being built, one inside another.
    defining: usize,
    /// Declared types whose bodies are built later: a body found more than
    /// [`MAX_NESTED_DEFINES`] bodies deep (a long chain of `$ref`s or properties).
    deferred: Vec<(TypeId, Loc)>,
}

/// How many type bodies are built one inside another before further ones are deferred to a
/// work list. Nesting keeps the order in which types are listed (a type's inline types right
/// after it); the bound keeps the stack small however long the chains in the schemas.
const MAX_NESTED_DEFINES: usize = 24;

/// What a schema looks like, for choosing a type.
#[derive(Clone)]
enum Shape {
    Any,
    Scalar(Ty),
    Object,
    Array,
    StringEnum(Vec<String>, bool),
    Union(Vec<Loc>),
    /// `"type": [a, b, …]`: one variant per JSON type (`null` aside), in a deserializable order.
    Types(Vec<String>),
    Ref(Loc),
}

impl<'c, 's> TypeBuilder<'c, 's> {
    pub fn new(comp: &'c mut Compiler<'s>) -> Self {
        TypeBuilder {
            comp,
            types: Vec::new(),
            modules: Vec::new(),
            named: HashMap::new(),
            shapes: HashMap::new(),
            followed: HashMap::new(),
            collected: HashMap::new(),
            pinned: HashMap::new(),
            diagnostics: Vec::new(),
            depth: 0,
            defining: 0,
            deferred: Vec::new(),
        }
    }

    fn obj(&self, loc: &Loc) -> Option<&Map<String, Value>> {
        self.comp.set().value(loc).and_then(Value::as_object)
    }

    fn at(loc: &Loc, tokens: &[&str]) -> Loc {
        let mut p = loc.pointer.clone();
        for t in tokens {
            p = pointer::push(&p, t);
        }
        Loc {
            doc: loc.doc,
            pointer: p,
        }
    }

    /// Registers a named type for a location before its body is built.
    pub fn declare(&mut self, loc: &Loc, raw_name: String, module: usize) -> TypeId {
        if let Some(id) = self.named.get(loc) {
            return *id;
        }
        let id = self.types.len();
        // The schema's own choice of name (`"x-name": "Order"`), in each language's case.
        let raw_name = match self.obj(loc).and_then(|o| o.get("x-name")) {
            Some(Value::String(n)) if n.chars().any(char::is_alphanumeric) => n.clone(),
            _ => raw_name,
        };
        let node = self.comp.node(loc.clone());
        let (doc, annotations) = self.doc_and_annotations(loc);
        // An object type of a schema that does not say `type` (set now: a reference to the
        // type can be met before its body is built).
        let open = matches!(self.shape(loc), Ok(Shape::Object) if !self.pinned(loc))
            .then_some(JsonKind::Object);
        self.types.push(TypeDef {
            raw_name,
            module,
            doc,
            origin: self.comp.set().location(loc),
            node,
            kind: TypeKind::Alias(Ty::Any),
            annotations,
            variant_of: None,
            open,
        });
        self.named.insert(loc.clone(), id);
        self.modules[module].types.push(id);
        id
    }

    fn doc_and_annotations(&self, loc: &Loc) -> (Option<String>, Vec<(String, Value)>) {
        let Some(obj) = self.obj(loc) else {
            return (None, Vec::new());
        };
        let doc = obj
            .get("description")
            .or_else(|| obj.get("title"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let ann = obj
            .iter()
            .filter(|(k, _)| k.starts_with("x-"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (doc, ann)
    }

    /// Builds the body of a declared type, and of every type it needs that is deferred.
    pub fn define(&mut self, id: TypeId, loc: &Loc) -> Result<()> {
        self.define_nested(id, loc)?;
        while let Some((id, loc)) = self.deferred.pop() {
            self.define_nested(id, &loc)?;
        }
        Ok(())
    }

    /// Builds the body of a type just declared inside another's body: now, or when the bodies
    /// nest too deeply, later (the caller only needs its id).
    fn define_inner(&mut self, id: TypeId, loc: &Loc) -> Result<()> {
        if self.defining >= MAX_NESTED_DEFINES {
            self.deferred.push((id, loc.clone()));
            return Ok(());
        }
        self.define_nested(id, loc)
    }

    fn define_nested(&mut self, id: TypeId, loc: &Loc) -> Result<()> {
        self.defining += 1;
        let result = self.define_body(id, loc);
        self.defining -= 1;
        result
    }

    fn define_body(&mut self, id: TypeId, loc: &Loc) -> Result<()> {
        let name = self.types[id].raw_name.clone();
        let module = self.types[id].module;
        let kind = match self.shape(loc)? {
            Shape::Object => match self.table_union(id, loc, &name, module)? {
                Some(u) => TypeKind::Union(u),
                None => TypeKind::Struct(self.structure(loc, &name, module)?),
            },
            Shape::StringEnum(values, _) => TypeKind::Enum(values),
            Shape::Types(kinds) => TypeKind::Union(self.type_union(loc, &kinds, &name, module)?),
            Shape::Union(branches) => match self.union(&branches, &name, module)? {
                Some(u) => TypeKind::Union(u),
                None => TypeKind::Alias(Ty::Any),
            },
            _ => TypeKind::Alias(self.ty_inner(loc, &name, module, false)?),
        };
        self.types[id].kind = kind;
        Ok(())
    }
}
impl TypeBuilder<'_, '_> {
    /// The first description (or title) met following `$ref`s from `loc`.
    fn doc_along_refs(&mut self, loc: &Loc) -> Result<Option<String>> {
        let mut cur = loc.clone();
        for _ in 0..32 {
            if let Some(doc) = self.doc_and_annotations(&cur).0 {
                return Ok(Some(doc));
            }
            match self.shape(&cur)? {
                Shape::Ref(next) => cur = next,
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The type of the schema at `loc`; anonymous objects, enums and unions get a named type
    /// called `hint`.
    pub fn ty_at(&mut self, loc: &Loc, hint: &str, module: usize, allow_named: bool) -> Result<Ty> {
        if let Some(id) = self.named.get(loc) {
            let id = *id;
            return Ok(self.open_unless_pinned(loc, Ty::Named(id)));
        }
        self.depth += 1;
        if self.depth > 200 {
            self.depth -= 1;
            return Err(Error::schema(
                self.comp.set().location(loc),
                "schema nests too deeply (over 200 levels)",
            ));
        }
        let result = self.ty_inner(loc, hint, module, allow_named);
        self.depth -= 1;
        result
    }

    fn ty_inner(&mut self, loc: &Loc, hint: &str, module: usize, allow_named: bool) -> Result<Ty> {
        let shape = self.shape(loc)?;
        // A union of JSON types holds its own `null`.
        let nullable = !matches!(shape, Shape::Types(_))
            && self.obj(loc).is_some_and(|o| {
                o.get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|t| t == "null"))
                    || o.get("nullable") == Some(&Value::Bool(true))
            });
        let ty = match shape {
            Shape::Any => Ty::Any,
            Shape::Scalar(Ty::String) => self.open_unless_pinned(loc, Ty::String),
            Shape::Scalar(t) => t,
            Shape::Ref(target) => {
                // Every `$ref` target gets a named type before its body is built, so recursion
                // through any location (not only `$defs`) terminates.
                let id = match self.named.get(&target) {
                    Some(id) => *id,
                    None => {
                        let name = self.ref_name(&target, hint);
                        let id = self.declare(&target, name, module);
                        self.define_inner(id, &target)?;
                        id
                    }
                };
                let ty = self.open_unless_pinned(loc, Ty::Named(id));
                let ty = if self.admits_null(&target)
                    && !matches!(self.shape(&target)?, Shape::Types(_))
                {
                    ty.nullable()
                } else {
                    ty
                };
                return Ok(if nullable { ty.nullable() } else { ty });
            }
            Shape::Types(_) => self.named_ty(loc, hint, module, allow_named)?,
            Shape::Array => {
                let ty = self.array_ty(loc, hint, module)?;
                self.open_unless_pinned(loc, ty)
            }
            Shape::Object => {
                let ty = self.object_ty(loc, hint, module, allow_named)?;
                self.open_unless_pinned(loc, ty)
            }
            Shape::StringEnum(_, enum_nullable) => {
                let t = self.named_ty(loc, hint, module, allow_named)?;
                if enum_nullable {
                    t.nullable()
                } else {
                    t
                }
            }
            Shape::Union(branches) => {
                let non_null = self.non_null_branches(&branches)?;
                if non_null.len() == 1 && non_null.len() < branches.len() {
                    return Ok(self.ty_at(&non_null[0], hint, module, true)?.nullable());
                }
                self.named_ty(loc, hint, module, allow_named)?
            }
        };
        Ok(if nullable { ty.nullable() } else { ty })
    }

    /// `Vec` of the `items` type (of `Any` for tuples and absent `items`).
    fn array_ty(&mut self, loc: &Loc, hint: &str, module: usize) -> Result<Ty> {
        let items = self
            .obj(loc)
            .and_then(|o| o.get("items"))
            .is_some_and(|v| v.is_object() || v.is_boolean());
        Ok(match items {
            true => {
                let item = self.ty_at(
                    &Self::at(loc, &["items"]),
                    &format!("{hint} item"),
                    module,
                    true,
                )?;
                Ty::Array(Box::new(item))
            }
            false => Ty::Array(Box::new(Ty::Any)),
        })
    }

    /// A map for an object schema without properties, else a struct named `hint`.
    fn object_ty(&mut self, loc: &Loc, hint: &str, module: usize, allow_named: bool) -> Result<Ty> {
        let (has_props, extra_schema, has_required) = match self.obj(loc) {
            Some(o) => (
                o.contains_key("properties") || o.contains_key("allOf"),
                o.get("additionalProperties").is_some_and(Value::is_object),
                o.contains_key("required"),
            ),
            None => (false, false, false),
        };
        match (has_props, extra_schema) {
            (false, true) => {
                let t = self.ty_at(
                    &Self::at(loc, &["additionalProperties"]),
                    &format!("{hint} value"),
                    module,
                    true,
                )?;
                Ok(Ty::Map(Box::new(t)))
            }
            (false, _) if !has_required => Ok(Ty::Map(Box::new(Ty::Any))),
            _ => self.named_ty(loc, hint, module, allow_named),
        }
    }

    /// The untagged union of `"type": [..]`: one variant per JSON type, sharing the schema's
    /// `items` or `additionalProperties`.
    fn type_union(
        &mut self,
        loc: &Loc,
        kinds: &[String],
        name: &str,
        module: usize,
    ) -> Result<Union> {
        let mut variants = Vec::new();
        for kind in kinds {
            let hint = format!("{name} {kind}");
            let ty = match kind.as_str() {
                "boolean" => Ty::Bool,
                "integer" => self
                    .obj(loc)
                    .map_or(Ty::WideInteger, super::types::shape::integer_ty),
                "number" => Ty::Number,
                "string" => Ty::String,
                "null" => Ty::Null,
                "array" => self.array_ty(loc, &hint, module)?,
                _ => self.object_ty(loc, &hint, module, true)?,
            };
            variants.push(Variant {
                raw_name: ty_word(&ty).to_string(),
                ty,
                tag_values: Vec::new(),
                node: None,
            });
        }
        Ok(Union {
            tags: Vec::new(),
            variants,
            within: None,
        })
    }

    /// A name for a `$ref` target that is not a definition: its title, the last token of its
    /// pointer, or the referencing property's name.
    fn ref_name(&self, target: &Loc, hint: &str) -> String {
        let title = self
            .obj(target)
            .and_then(|o| o.get("title"))
            .and_then(Value::as_str)
            .filter(|t| t.split_whitespace().count() <= 4);
        if let Some(t) = title {
            return t.to_string();
        }
        match target.pointer.rsplit('/').next() {
            Some(last) if !target.pointer.is_empty() && last.parse::<usize>().is_err() => {
                last.replace("~1", "/").replace("~0", "~")
            }
            _ if target.pointer.is_empty() => {
                let rel = &self.comp.set().docs[target.doc].rel;
                rel.rsplit('/')
                    .next()
                    .unwrap_or(rel)
                    .trim_end_matches(".json")
                    .to_string()
            }
            _ => hint.to_string(),
        }
    }

    /// Whether a named type's own schema also admits `null` (its type then holds only the rest).
    fn admits_null(&self, loc: &Loc) -> bool {
        let Some(o) = self.obj(loc) else { return false };
        let in_type = o
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|t| t == "null") && a.len() > 1);
        let in_enum = o
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(Value::is_null) && a.iter().any(Value::is_string));
        in_type || in_enum
    }

    fn named_ty(&mut self, loc: &Loc, hint: &str, module: usize, _allow: bool) -> Result<Ty> {
        let id = self.declare(loc, hint.to_string(), module);
        self.define_inner(id, loc)?;
        Ok(Ty::Named(id))
    }

    fn non_null_branches(&mut self, branches: &[Loc]) -> Result<Vec<Loc>> {
        let mut out = Vec::new();
        for b in branches {
            let r = self.follow_refs(b)?;
            if !matches!(self.shape(&r)?, Shape::Scalar(Ty::Null)) {
                out.push(b.clone());
            }
        }
        Ok(out)
    }

    fn structure(&mut self, loc: &Loc, name: &str, module: usize) -> Result<Struct> {
        let mut props = Vec::new();
        let mut required = Vec::new();
        self.collect_props(loc, &mut props, &mut required)?;
        let required: HashSet<String> = required.into_iter().collect();
        let mut fields = Vec::new();
        for (wire, ploc) in props {
            let required = required.contains(&wire);
            fields.push(self.field(wire, &ploc, required, name, module)?);
        }
        let (deny_unknown, extra) = self.unknown_policy(loc, name, module)?;
        Ok(Struct {
            fields,
            deny_unknown,
            extra,
        })
    }

    /// The field for property `wire` whose schema is at `ploc`, in a struct named `name`.
    fn field(
        &mut self,
        wire: String,
        ploc: &Loc,
        required: bool,
        name: &str,
        module: usize,
    ) -> Result<Field> {
        let ty = self.ty_at(ploc, &format!("{name} {wire}"), module, true)?;
        let (_, annotations) = self.doc_and_annotations(ploc);
        let doc = self.doc_along_refs(ploc)?;
        let default = self.obj(ploc).and_then(|o| o.get("default")).cloned();
        let default = default.filter(|d| {
            let fits = fits(&ty, d, &self.types);
            if !fits {
                self.diagnostics.push(Diagnostic {
                    severity: Severity::Warning,
                    location: self.comp.set().location(ploc),
                    message: format!(
                        "default {d} does not fit the property's type; it is not applied"
                    ),
                });
            }
            fits
        });
        Ok(Field {
            wire,
            doc,
            ty,
            required,
            default,
            annotations,
        })
    }

    /// Whether an object schema denies unknown properties, and the type of the properties it
    /// does not declare, kept in a map (`None` only when it denies them).
    fn unknown_policy(
        &mut self,
        loc: &Loc,
        name: &str,
        module: usize,
    ) -> Result<(bool, Option<Ty>)> {
        let (mut deny_unknown, extra_schema) = match self.obj(loc) {
            Some(o) => (
                o.get("additionalProperties") == Some(&Value::Bool(false))
                    && !o.contains_key("patternProperties"),
                o.get("additionalProperties").is_some_and(Value::is_object),
            ),
            None => (false, false),
        };
        // `unevaluatedProperties: false` closes the type too where its properties are known.
        deny_unknown |= !extra_schema && self.closed_by_unevaluated(loc)?;
        // An object that admits more properties than it declares keeps them (as JSON values
        // unless `additionalProperties` types them), so that parsing loses nothing.
        let extra = match extra_schema {
            true => Some(self.ty_at(
                &Self::at(loc, &["additionalProperties"]),
                &format!("{name} value"),
                module,
                true,
            )?),
            false if deny_unknown => None,
            false => Some(Ty::Any),
        };
        Ok((deny_unknown, extra))
    }

    /// A union of branches; tagged when every branch is an object with a required literal
    /// property in common.
    fn union(&mut self, branches: &[Loc], name: &str, module: usize) -> Result<Option<Union>> {
        let mut resolved = Vec::new();
        for b in branches {
            resolved.push(self.follow_refs(b)?);
        }
        let mut literal_sets: Vec<Vec<(String, String)>> = Vec::new();
        let mut all_objects = true;
        for r in &resolved {
            if !matches!(self.shape(r)?, Shape::Object) {
                all_objects = false;
                break;
            }
            let mut props = Vec::new();
            let mut required = Vec::new();
            self.collect_props(r, &mut props, &mut required)?;
            let required: HashSet<String> = required.into_iter().collect();
            let mut lits = Vec::new();
            for (p, ploc) in props {
                if !required.contains(&p) {
                    continue;
                }
                if let Ok(Shape::Scalar(Ty::Literal(v))) = self.shape(&ploc) {
                    lits.push((p, v));
                }
            }
            literal_sets.push(lits);
        }
        let mut tags = Vec::new();
        if all_objects && !branches.is_empty() {
            // Tag properties: literal in every branch; add tags until the value tuples are distinct.
            let common: Vec<String> = literal_sets[0]
                .iter()
                .map(|(p, _)| p.clone())
                .filter(|p| literal_sets.iter().all(|s| s.iter().any(|(q, _)| q == p)))
                .collect();
            for p in common {
                tags.push(p);
                let tuples: Vec<Vec<&String>> = literal_sets
                    .iter()
                    .map(|s| {
                        tags.iter()
                            .map(|t| &s.iter().find(|(q, _)| q == t).expect("common").1)
                            .collect()
                    })
                    .collect();
                let mut sorted = tuples.clone();
                sorted.sort();
                sorted.dedup();
                if sorted.len() == tuples.len() {
                    break;
                }
                if tags.len() == 2 {
                    tags.clear();
                    break;
                }
            }
            if !tags.is_empty() {
                let tuples_distinct = {
                    let mut t: Vec<Vec<&String>> = literal_sets
                        .iter()
                        .map(|s| {
                            tags.iter()
                                .map(|t| &s.iter().find(|(q, _)| q == t).expect("common").1)
                                .collect()
                        })
                        .collect();
                    let n = t.len();
                    t.sort();
                    t.dedup();
                    t.len() == n
                };
                if !tuples_distinct {
                    tags.clear();
                }
            }
        }
        let mut variants = Vec::new();
        for (i, b) in branches.iter().enumerate() {
            let tag_values: Vec<String> = if tags.is_empty() {
                Vec::new()
            } else {
                tags.iter()
                    .map(|t| {
                        literal_sets[i]
                            .iter()
                            .find(|(q, _)| q == t)
                            .expect("tag")
                            .1
                            .clone()
                    })
                    .collect()
            };
            let raw = if tag_values.is_empty() {
                format!("{name} variant{i}")
            } else {
                format!("{name} {}", tag_values.join(" "))
            };
            let ty = self.ty_at(b, &raw, module, true)?;
            // A variant is named after the type a branch refers to, else after the tag values
            // that tell it apart (not those every branch shares), else its type.
            let telling: Vec<&str> = tags
                .iter()
                .zip(&tag_values)
                .filter(|(t, v)| {
                    let i = tags.iter().position(|x| x == *t).expect("a tag");
                    literal_sets
                        .iter()
                        .any(|s| s.iter().any(|(q, w)| q == *t && w != *v))
                        || i + 1 == tags.len()
                })
                .map(|(_, v)| v.as_str())
                .collect();
            let variant_name = match &ty {
                Ty::Named(id) if self.types[*id].raw_name != raw => {
                    self.types[*id].raw_name.clone()
                }
                _ if !tag_values.is_empty() => telling.join(" "),
                Ty::Named(id) => self.types[*id].raw_name.clone(),
                t => ty_word(t).to_string(),
            };
            let node = Some(self.comp.node(b.clone()));
            variants.push(Variant {
                raw_name: variant_name,
                ty,
                tag_values,
                node,
            });
        }
        Ok(Some(Union {
            tags,
            variants,
            within: None,
        }))
    }
}

fn ty_word(t: &Ty) -> &'static str {
    match t {
        Ty::Any => "value",
        Ty::Bool => "bool",
        Ty::Integer | Ty::WideInteger => "integer",
        Ty::Number => "number",
        Ty::String | Ty::Literal(_) => "string",
        Ty::Null => "null",
        Ty::Nullable(_) => "nullable",
        Ty::Array(_) => "array",
        Ty::Map(_) => "map",
        Ty::Named(_) => "named",
        Ty::Open(t, _) => ty_word(t),
    }
}
