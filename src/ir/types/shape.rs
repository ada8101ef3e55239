//! What a schema looks like, for choosing a type: its [`Shape`]. Shapes are computed without
//! recursion: `allOf` members (through chains of `$ref`s of any length) are evaluated with an
//! explicit stack, and a member that is still being evaluated (a cycle through `allOf`) counts
//! as a schema that accepts anything.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{Shape, TypeBuilder};
use crate::error::Result;
use crate::ir::model::Ty;
use crate::schema::Loc;

/// An `allOf` whose members' shapes are being evaluated.
struct Frame {
    loc: Loc,
    n: usize,
    /// The next member to evaluate.
    i: usize,
    objects: bool,
    /// Set when the shape is known before every member is seen.
    done: Option<Shape>,
}

/// A schema's shape as far as its own keywords tell: done, or an `allOf` of `n` members.
enum Local {
    Done(Shape),
    AllOf(usize),
}

impl TypeBuilder<'_, '_> {
    pub(super) fn shape(&mut self, loc: &Loc) -> Result<Shape> {
        if let Some(s) = self.shapes.get(loc) {
            return Ok(s.clone());
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut active: HashSet<Loc> = HashSet::new();
        let mut want = Some(loc.clone());
        let mut last: Option<Shape> = None;
        loop {
            if let Some(l) = want.take() {
                match self.local_shape(&l)? {
                    Local::Done(s) => {
                        self.shapes.insert(l, s.clone());
                        last = Some(s);
                    }
                    Local::AllOf(n) => {
                        active.insert(l.clone());
                        stack.push(Frame {
                            loc: l,
                            n,
                            i: 0,
                            objects: true,
                            done: None,
                        });
                    }
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(last.unwrap_or(Shape::Any));
            };
            if let Some(s) = last.take() {
                match s {
                    Shape::Object => {}
                    Shape::Scalar(t) if top.n == 1 => top.done = Some(Shape::Scalar(t)),
                    _ => top.objects = false,
                }
                top.i += 1;
            }
            if top.done.is_none() && top.i < top.n {
                let member = Self::at(&top.loc, &["allOf", &top.i.to_string()]);
                let target = self.follow_refs(&member)?;
                if let Some(s) = self.shapes.get(&target) {
                    last = Some(s.clone());
                } else if active.contains(&target) {
                    // A cycle through `allOf`: the member adds nothing the cycle does not.
                    last = Some(Shape::Any);
                } else {
                    want = Some(target);
                }
                continue;
            }
            let f = stack.pop().expect("a frame");
            let s = f.done.unwrap_or(if f.objects && f.n > 0 {
                Shape::Object
            } else {
                Shape::Any
            });
            active.remove(&f.loc);
            self.shapes.insert(f.loc, s.clone());
            last = Some(s);
        }
    }

    /// The shape a schema's own keywords give, `$ref`s resolved one step.
    fn local_shape(&mut self, loc: &Loc) -> Result<Local> {
        if let Some(s) = self.shapes.get(loc) {
            return Ok(Local::Done(s.clone()));
        }
        if let Some(target) = self.redundantly_typed_ref(loc)? {
            return Ok(Local::Done(Shape::Ref(target)));
        }
        let pre = match self.obj(loc) {
            Some(obj) => pre_shape(obj, loc),
            None => Pre::Done(Shape::Any),
        };
        Ok(match pre {
            Pre::Done(s) => Local::Done(s),
            Pre::Ref(r) => Local::Done(Shape::Ref(self.comp.set_mut().resolve(loc, &r)?)),
            // A `$dynamicRef` is typed as its target only where every dynamic scope gives the
            // same one (`SchemaSet::dynamic_ref_is_static`); elsewhere as any JSON value.
            Pre::DynamicRef(r) => {
                let target = self.comp.set_mut().resolve(loc, &r)?;
                Local::Done(if self.comp.set().dynamic_ref_is_static(&r, &target) {
                    Shape::Ref(target)
                } else {
                    Shape::Any
                })
            }
            Pre::AllOf(n) => Local::AllOf(n),
        })
    }

    /// Follows `$ref`-only schemas to the schema they name, through chains of any length. On a
    /// cycle of `$ref`s it returns a location on the cycle, whose shape is still a `Ref`.
    pub(super) fn follow_refs(&mut self, loc: &Loc) -> Result<Loc> {
        let mut path: Vec<Loc> = Vec::new();
        let mut on_path: HashSet<Loc> = HashSet::new();
        let mut cur = loc.clone();
        let end = loop {
            if let Some(end) = self.followed.get(&cur) {
                break end.clone();
            }
            if !on_path.insert(cur.clone()) {
                break cur;
            }
            let next = match self.local_shape(&cur)? {
                Local::Done(s) => {
                    self.shapes.insert(cur.clone(), s.clone());
                    match s {
                        Shape::Ref(next) => Some(next),
                        _ => None,
                    }
                }
                Local::AllOf(_) => None,
            };
            path.push(cur.clone());
            match next {
                Some(next) => cur = next,
                None => break cur,
            }
        };
        for p in path {
            self.followed.insert(p, end.clone());
        }
        Ok(end)
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
fn multi_type(types: &[&str], null: bool, structured: bool, integer: Ty) -> Shape {
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
            "integer" => Shape::Scalar(integer),
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
    DynamicRef(String),
    AllOf(usize),
}

fn pre_shape(obj: &Map<String, Value>, loc: &Loc) -> Pre {
    {
        let alone = |key: &str| {
            obj.contains_key(key)
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
                .any(|k| obj.contains_key(*k))
        };
        if alone("$ref") {
            return Pre::Ref(obj["$ref"].as_str().unwrap_or_default().to_string());
        }
        if let Some(r) = obj.get("$dynamicRef").and_then(Value::as_str) {
            if alone("$dynamicRef") && !obj.contains_key("$ref") {
                return Pre::DynamicRef(r.to_string());
            }
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
                Value::Number(n) if n.is_i64() => Shape::Scalar(Ty::Integer),
                Value::Number(_) => Shape::Scalar(Ty::WideInteger),
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
            return Pre::Done(multi_type(&non_null, null, structured, integer_ty(obj)));
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
            "integer" => Shape::Scalar(integer_ty(obj)),
            "number" => Shape::Scalar(Ty::Number),
            "boolean" => Shape::Scalar(Ty::Bool),
            _ => Shape::Any,
        })
    }
}

/// The type of an integer schema: [`Ty::Integer`] when its own bounds (`minimum` or
/// `exclusiveMinimum`, and `maximum` or `exclusiveMaximum`) keep every value in the 64-bit
/// signed range, else [`Ty::WideInteger`].
pub(crate) fn integer_ty(obj: &Map<String, Value>) -> Ty {
    let bound = |keys: [&str; 2]| keys.iter().filter_map(|k| obj.get(*k)?.as_f64()).next();
    match (
        bound(["minimum", "exclusiveMinimum"]),
        bound(["maximum", "exclusiveMaximum"]),
    ) {
        (Some(lo), Some(hi)) if lo >= -9.2e18 && hi <= 9.2e18 => Ty::Integer,
        _ => Ty::WideInteger,
    }
}
