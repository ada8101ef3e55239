//! Derives the type model from schemas. Types are a sound over-approximation: every instance the
//! validator accepts deserializes; the validator, not the type, is exact.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::compile::Compiler;
use super::model::{Field, Module, Struct, Ty, TypeDef, TypeId, TypeKind, Union, Variant};
use crate::error::{Diagnostic, Error, Result, Severity};
use crate::schema::{pointer, Loc};

mod variants;

pub struct TypeBuilder<'c, 's> {
    pub comp: &'c mut Compiler<'s>,
    pub types: Vec<TypeDef>,
    pub modules: Vec<Module>,
    named: HashMap<Loc, TypeId>,
    shapes: HashMap<Loc, Shape>,
    pub diagnostics: Vec<Diagnostic>,
    depth: usize,
}

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
            diagnostics: Vec::new(),
            depth: 0,
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
        let node = self.comp.node(loc.clone());
        let (doc, annotations) = self.doc_and_annotations(loc);
        self.types.push(TypeDef {
            raw_name,
            module,
            doc,
            origin: self.comp.set().location(loc),
            node,
            kind: TypeKind::Alias(Ty::Any),
            annotations,
            variant_of: None,
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

    /// Builds the body of a declared type.
    pub fn define(&mut self, id: TypeId, loc: &Loc) -> Result<()> {
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

    fn shape(&mut self, loc: &Loc) -> Result<Shape> {
        if let Some(s) = self.shapes.get(loc) {
            return Ok(s.clone());
        }
        if let Some(target) = self.redundantly_typed_ref(loc)? {
            let shape = Shape::Ref(target);
            self.shapes.insert(loc.clone(), shape.clone());
            return Ok(shape);
        }
        let pre = match self.obj(loc) {
            Some(obj) => pre_shape(obj, loc),
            None => Pre::Done(Shape::Any),
        };
        let shape = match pre {
            Pre::Done(s) => s,
            Pre::Ref(r) => Shape::Ref(self.comp.set_mut().resolve(loc, &r)?),
            Pre::AllOf(n) => self.all_of_shape(loc, n)?,
        };
        self.shapes.insert(loc.clone(), shape.clone());
        Ok(shape)
    }
}

impl TypeBuilder<'_, '_> {
    /// The target of a `$ref` whose siblings only repeat the target's own `type` and add
    /// keywords that cannot apply to that type (`{"$ref": "#", "type": "object", "items": …}`):
    /// the same type as the target, not a copy of it. Validation still compiles every sibling.
    fn redundantly_typed_ref(&mut self, loc: &Loc) -> Result<Option<Loc>> {
        let Some(obj) = self.obj(loc) else {
            return Ok(None);
        };
        let (Some(Value::String(r)), Some(Value::String(ty))) = (obj.get("$ref"), obj.get("type"))
        else {
            return Ok(None);
        };
        let inapplicable = inapplicable_to(ty);
        let shaping = SHAPING
            .iter()
            .chain(TYPE_SPECIFIC.iter().flat_map(|(_, k)| *k));
        if shaping
            .filter(|k| !inapplicable.contains(k))
            .any(|k| obj.contains_key(*k))
        {
            return Ok(None);
        }
        let (r, ty) = (r.clone(), ty.clone());
        let target = self.comp.set_mut().resolve(loc, &r)?;
        let same = self
            .obj(&target)
            .is_some_and(|t| t.get("type").and_then(Value::as_str) == Some(ty.as_str()));
        Ok(same.then_some(target))
    }
}

/// Keywords that make a schema more than its `$ref`, whatever the instance type.
const SHAPING: &[&str] = &[
    "type",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "$dynamicRef",
];

/// Keywords that apply to instances of one type only.
const TYPE_SPECIFIC: &[(&str, &[&str])] = &[
    (
        "object",
        &[
            "properties",
            "additionalProperties",
            "patternProperties",
            "required",
            "minProperties",
            "maxProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "dependencies",
            "unevaluatedProperties",
        ],
    ),
    (
        "array",
        &[
            "items",
            "prefixItems",
            "additionalItems",
            "contains",
            "minItems",
            "maxItems",
            "uniqueItems",
            "unevaluatedItems",
        ],
    ),
    ("string", &["minLength", "maxLength", "pattern", "format"]),
    (
        "number",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
];

/// The type-specific keywords that an instance of type `ty` ignores, plus `type` itself.
fn inapplicable_to(ty: &str) -> Vec<&'static str> {
    let own = if ty == "integer" { "number" } else { ty };
    let mut out = vec!["type"];
    for (t, keywords) in TYPE_SPECIFIC {
        if *t != own {
            out.extend_from_slice(keywords);
        }
    }
    out
}

/// The shape of `"type": [..]` with several non-null types: a union of the JSON types, integers
/// before numbers so the narrower one wins, and `null` last when listed (the union itself
/// admits it, as an `anyOf` with a null branch does). An object with properties among them
/// stays `Any`.
fn multi_type(types: &[&str], null: bool, structured: bool) -> Shape {
    const ORDER: [&str; 6] = ["boolean", "integer", "number", "string", "array", "object"];
    if types.iter().any(|t| !ORDER.contains(t)) || (structured && types.contains(&"object")) {
        return Shape::Any;
    }
    let mut kinds: Vec<String> = ORDER
        .iter()
        .filter(|t| types.contains(t))
        .map(|t| t.to_string())
        .collect();
    if kinds.len() == 1 {
        return match kinds[0].as_str() {
            "object" => Shape::Object,
            "array" => Shape::Array,
            "string" => Shape::Scalar(Ty::String),
            "integer" => Shape::Scalar(Ty::Integer),
            "number" => Shape::Scalar(Ty::Number),
            _ => Shape::Scalar(Ty::Bool),
        };
    }
    if null {
        kinds.push("null".into());
    }
    Shape::Types(kinds)
}

/// What a schema's own keywords say about its shape; refs and `allOf` need the schema set.
enum Pre {
    Done(Shape),
    Ref(String),
    AllOf(usize),
}

fn pre_shape(obj: &Map<String, Value>, loc: &Loc) -> Pre {
    {
        let only_ref = obj.contains_key("$ref")
            && ![
                "type",
                "properties",
                "items",
                "enum",
                "const",
                "oneOf",
                "anyOf",
                "allOf",
                "additionalProperties",
            ]
            .iter()
            .any(|k| obj.contains_key(*k));
        if only_ref {
            return Pre::Ref(obj["$ref"].as_str().unwrap_or_default().to_string());
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            let nullable = values.iter().any(Value::is_null);
            let strings: Option<Vec<String>> = values
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| v.as_str().map(String::from))
                .collect();
            return Pre::Done(match strings {
                Some(s) if !s.is_empty() => Shape::StringEnum(s, nullable),
                _ => Shape::Any,
            });
        }
        if let Some(c) = obj.get("const") {
            return Pre::Done(match c {
                Value::String(s) => Shape::Scalar(Ty::Literal(s.clone())),
                Value::Null => Shape::Scalar(Ty::Null),
                Value::Bool(_) => Shape::Scalar(Ty::Bool),
                Value::Number(n) if n.is_f64() => Shape::Scalar(Ty::Number),
                Value::Number(_) => Shape::Scalar(Ty::Integer),
                _ => Shape::Any,
            });
        }
        let types: Vec<&str> = match obj.get("type") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let has = |k: &str| obj.contains_key(k);
        let objectish = has("properties")
            || has("required")
            || has("additionalProperties")
            || has("patternProperties");
        if non_null.len() > 1 {
            let structured =
                has("properties") || has("required") || has("patternProperties") || has("allOf");
            let null = types.contains(&"null");
            return Pre::Done(multi_type(&non_null, null, structured));
        }
        if non_null.is_empty() && types.contains(&"null") {
            return Pre::Done(Shape::Scalar(Ty::Null));
        }
        let kind = match non_null.first() {
            Some(t) => *t,
            None if objectish => "object",
            None if has("items") || has("prefixItems") => "array",
            None if has("allOf") => return Pre::AllOf(obj["allOf"].as_array().map_or(0, Vec::len)),
            None if has("oneOf") || has("anyOf") => {
                let key = if has("oneOf") { "oneOf" } else { "anyOf" };
                let n = obj[key].as_array().map_or(0, Vec::len);
                return Pre::Done(Shape::Union(
                    (0..n)
                        .map(|i| TypeBuilder::at(loc, &[key, &i.to_string()]))
                        .collect(),
                ));
            }
            None if has("pattern") || has("minLength") || has("maxLength") || has("format") => {
                "string"
            }
            None => return Pre::Done(Shape::Any),
        };
        Pre::Done(match kind {
            "object" => Shape::Object,
            "array" => Shape::Array,
            "string" => Shape::Scalar(Ty::String),
            "integer" => Shape::Scalar(Ty::Integer),
            "number" => Shape::Scalar(Ty::Number),
            "boolean" => Shape::Scalar(Ty::Bool),
            _ => Shape::Any,
        })
    }
}

impl TypeBuilder<'_, '_> {
    fn all_of_shape(&mut self, loc: &Loc, n: usize) -> Result<Shape> {
        let mut objects = true;
        for i in 0..n {
            let member = self.resolve_refs(&Self::at(loc, &["allOf", &i.to_string()]))?;
            match self.shape(&member)? {
                Shape::Object => {}
                Shape::Scalar(t) if n == 1 => return Ok(Shape::Scalar(t)),
                _ => objects = false,
            }
        }
        Ok(if objects && n > 0 {
            Shape::Object
        } else {
            Shape::Any
        })
    }

    /// Follows `$ref`-only schemas to the schema they name.
    fn resolve_refs(&mut self, loc: &Loc) -> Result<Loc> {
        let mut cur = loc.clone();
        for _ in 0..32 {
            match self.shape(&cur)? {
                Shape::Ref(next) => cur = next,
                _ => return Ok(cur),
            }
        }
        Ok(cur)
    }

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
            return Ok(Ty::Named(*id));
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
            Shape::Scalar(t) => t,
            Shape::Ref(target) => {
                // Every `$ref` target gets a named type before its body is built, so recursion
                // through any location (not only `$defs`) terminates.
                let id = match self.named.get(&target) {
                    Some(id) => *id,
                    None => {
                        let name = self.ref_name(&target, hint);
                        let id = self.declare(&target, name, module);
                        self.define(id, &target)?;
                        id
                    }
                };
                let ty = if self.admits_null(&target)
                    && !matches!(self.shape(&target)?, Shape::Types(_))
                {
                    Ty::Named(id).nullable()
                } else {
                    Ty::Named(id)
                };
                return Ok(if nullable { ty.nullable() } else { ty });
            }
            Shape::Types(_) => self.named_ty(loc, hint, module, allow_named)?,
            Shape::Array => self.array_ty(loc, hint, module)?,
            Shape::Object => self.object_ty(loc, hint, module, allow_named)?,
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
                "integer" => Ty::Integer,
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
        self.define(id, loc)?;
        Ok(Ty::Named(id))
    }

    fn non_null_branches(&mut self, branches: &[Loc]) -> Result<Vec<Loc>> {
        let mut out = Vec::new();
        for b in branches {
            let r = self.resolve_refs(b)?;
            if !matches!(self.shape(&r)?, Shape::Scalar(Ty::Null)) {
                out.push(b.clone());
            }
        }
        Ok(out)
    }

    /// Collects the properties of an object schema and of its `allOf` members.
    fn collect_props(
        &mut self,
        loc: &Loc,
        props: &mut Vec<(String, Loc)>,
        required: &mut Vec<String>,
        seen: &mut Vec<Loc>,
    ) -> Result<()> {
        if seen.contains(loc) || seen.len() > 64 {
            return Ok(());
        }
        seen.push(loc.clone());
        let Some(obj) = self.obj(loc) else {
            return Ok(());
        };
        if let Some(p) = obj.get("properties").and_then(Value::as_object) {
            for name in p.keys() {
                if !props.iter().any(|(n, _)| n == name) {
                    props.push((name.clone(), Self::at(loc, &["properties", name])));
                }
            }
        }
        for r in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !required.iter().any(|x| x == r) {
                required.push(r.to_string());
            }
        }
        let reference = obj.get("$ref").and_then(Value::as_str).map(str::to_string);
        let n = obj
            .get("allOf")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if let Some(r) = reference {
            let target = self.comp.set_mut().resolve(loc, &r)?;
            self.collect_props(&target, props, required, seen)?;
        }
        for i in 0..n {
            let member = Self::at(loc, &["allOf", &i.to_string()]);
            self.collect_props(&member, props, required, seen)?;
        }
        Ok(())
    }

    fn structure(&mut self, loc: &Loc, name: &str, module: usize) -> Result<Struct> {
        let mut props = Vec::new();
        let mut required = Vec::new();
        self.collect_props(loc, &mut props, &mut required, &mut Vec::new())?;
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

    /// Whether an object schema denies unknown properties, and the type of additional ones it
    /// keeps in a map.
    fn unknown_policy(
        &mut self,
        loc: &Loc,
        name: &str,
        module: usize,
    ) -> Result<(bool, Option<Ty>)> {
        let (deny_unknown, extra_schema) = match self.obj(loc) {
            Some(o) => (
                o.get("additionalProperties") == Some(&Value::Bool(false))
                    && !o.contains_key("patternProperties"),
                o.get("additionalProperties").is_some_and(Value::is_object),
            ),
            None => (false, false),
        };
        let extra = match extra_schema {
            true => Some(self.ty_at(
                &Self::at(loc, &["additionalProperties"]),
                &format!("{name} value"),
                module,
                true,
            )?),
            false => None,
        };
        Ok((deny_unknown, extra))
    }

    /// A union of branches; tagged when every branch is an object with a required literal
    /// property in common.
    fn union(&mut self, branches: &[Loc], name: &str, module: usize) -> Result<Option<Union>> {
        let mut resolved = Vec::new();
        for b in branches {
            resolved.push(self.resolve_refs(b)?);
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
            self.collect_props(r, &mut props, &mut required, &mut Vec::new())?;
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
            let variant_name = match (&ty, tag_values.is_empty()) {
                (_, false) => tag_values.join(" "),
                (Ty::Named(id), true) => self.types[*id].raw_name.clone(),
                (t, true) => ty_word(t).to_string(),
            };
            variants.push(Variant {
                raw_name: variant_name,
                ty,
                tag_values,
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
        Ty::Integer => "integer",
        Ty::Number => "number",
        Ty::String | Ty::Literal(_) => "string",
        Ty::Null => "null",
        Ty::Nullable(_) => "nullable",
        Ty::Array(_) => "array",
        Ty::Map(_) => "map",
        Ty::Named(_) => "named",
    }
}

/// Whether a default value can be held by a type.
pub fn fits(ty: &Ty, v: &Value, types: &[TypeDef]) -> bool {
    match (ty, v) {
        (Ty::Any, _) => true,
        (Ty::Nullable(_), Value::Null) | (Ty::Null, Value::Null) => true,
        (Ty::Nullable(t), v) => fits(t, v, types),
        (Ty::Bool, Value::Bool(_)) => true,
        (Ty::Integer, Value::Number(n)) => n.is_i64(),
        (Ty::Number, Value::Number(_)) => true,
        (Ty::String, Value::String(_)) => true,
        (Ty::Literal(l), Value::String(s)) => l == s,
        (Ty::Array(t), Value::Array(items)) => items.iter().all(|i| fits(t, i, types)),
        (Ty::Map(t), Value::Object(m)) => m.values().all(|i| fits(t, i, types)),
        (Ty::Named(id), v) => match &types[*id].kind {
            TypeKind::Enum(values) => v.as_str().is_some_and(|s| values.iter().any(|x| x == s)),
            TypeKind::Alias(t) => fits(t, v, types),
            TypeKind::Struct(s) => {
                let Value::Object(m) = v else { return false };
                let declared = |k: &String| s.fields.iter().any(|f| f.wire == *k);
                s.fields.iter().all(|f| {
                    m.get(&f.wire)
                        .map_or(!f.required, |x| fits(&f.ty, x, types))
                }) && m
                    .iter()
                    .filter(|(k, _)| !declared(k))
                    .all(|(_, x)| match &s.extra {
                        Some(t) => fits(t, x, types),
                        None => !s.deny_unknown,
                    })
            }
            TypeKind::Union(u) => u.variants.iter().any(|var| fits(&var.ty, v, types)),
        },
        _ => false,
    }
}
