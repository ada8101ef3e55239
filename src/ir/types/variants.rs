//! Tagged variants from `allOf` + `if`/`then` tables: an object whose `if`s test a required
//! enum property (the tag) for a `const`, optionally together with a second property, and whose
//! `then`s narrow the other properties. Seed 004's next actions are the model:
//!
//! ```text
//! if type = "Reply"                       then subtype: ReplySubtype, metadata: EmptyMetadata
//! if type = "Escalate"                    then subtype: EscalateSubtype
//! if type = "Escalate", subtype = "unusual" then metadata: EscalateUnusualMetadata
//! ```
//!
//! Such an object becomes a union tagged by the first property with one struct per tag value,
//! each field typed by the `then`s that apply to it. A value whose rows also test the second
//! property becomes a union of its own tagged by that property (`within` the first), one struct
//! per value of the second property's enum. The types stay a sound over-approximation: an
//! instance the schema accepts has a tag value, every `then` of that value applies to it, and its
//! variant's field types come from those `then`s. Each variant validates as the whole schema plus
//! its tag values.

use serde_json::{json, Map, Value};

use super::{Shape, TypeBuilder};
use crate::error::Result;
use crate::ir::model::{Field, Struct, Ty, TypeDef, TypeId, TypeKind, Union, Variant};
use crate::schema::Loc;

/// One `if`/`then` of the table: the tests (a property and the values its `const` or `enum`
/// allows) and the `then` schema.
struct Row {
    tests: Vec<(String, Vec<Value>)>,
    then: Loc,
    /// The tested properties the `if` itself requires; a test of a property the object does not
    /// require either also holds when the property is absent, so it is no tag.
    required: Vec<String>,
}

impl Row {
    /// Whether the row's test of `property` admits `value`.
    fn admits(&self, property: &str, value: &str) -> bool {
        self.tests
            .iter()
            .any(|(p, values)| p == property && values.iter().any(|x| x.as_str() == Some(value)))
    }

    /// Whether the row tests `property` only for strings in `values`.
    fn within(&self, property: &str, values: &[String]) -> bool {
        self.tests.iter().any(|(p, xs)| {
            p == property
                && xs
                    .iter()
                    .all(|x| x.as_str().is_some_and(|x| values.iter().any(|v| v == x)))
        })
    }
}

/// A property's schema, or a literal tag value (with the schema it narrows, for its doc).
#[derive(Clone)]
enum Source {
    Schema(Loc),
    Tag(String, Option<Loc>),
}

/// The fields of one variant as they build up: wire name, schema, required.
type Plan = Vec<(String, Source, bool)>;

impl TypeBuilder<'_, '_> {
    /// The union an `if`/`then` table describes, if the object at `loc` is one.
    pub(super) fn table_union(
        &mut self,
        id: TypeId,
        loc: &Loc,
        name: &str,
        module: usize,
    ) -> Result<Option<Union>> {
        let Some(rows) = self.rows(loc) else {
            return Ok(None);
        };
        let mut props = Vec::new();
        let mut required = Vec::new();
        self.collect_props(loc, &mut props, &mut required)?;
        // The tag: tested by every row, required, an enum of strings.
        let first = rows[0].tests[0].0.clone();
        let tag = rows[0]
            .tests
            .iter()
            .map(|(p, _)| p.clone())
            .find(|p| rows.iter().all(|r| r.tests.iter().any(|(q, _)| q == p)));
        let Some(tag) = tag.or(Some(first)) else {
            return Ok(None);
        };
        let Some(values) = self.string_enum(
            props
                .iter()
                .find(|(p, _)| *p == tag)
                .map(|(_, l)| l.clone()),
        )?
        else {
            return Ok(None);
        };
        if !required.contains(&tag) || !rows.iter().all(|r| r.within(&tag, &values)) {
            return Ok(None);
        }
        // At most one second property, the same in every row that tests two.
        let seconds: Vec<&String> = rows
            .iter()
            .flat_map(|r| r.tests.iter().map(|(p, _)| p))
            .filter(|p| **p != tag)
            .collect();
        if seconds.windows(2).any(|w| w[0] != w[1]) || rows.iter().any(|r| r.tests.len() > 2) {
            return Ok(None);
        }
        let second = seconds.first().map(|s| s.to_string());
        // Every tested property is required, by its `if` or by the object.
        if rows.iter().any(|r| {
            r.tests
                .iter()
                .any(|(p, _)| !r.required.contains(p) && !required.contains(p))
        }) {
            return Ok(None);
        }
        // Only a table whose `then`s give some property another type pairs values with payloads;
        // one that only adds constraints (a pattern per value) stays a struct.
        let mut refines = false;
        for row in &rows {
            for (p, then_loc) in self.then_properties(&row.then) {
                let base = props.iter().find(|(q, _)| *q == p).map(|(_, l)| l.clone());
                refines |= self.retypes(base, &then_loc)?;
            }
        }
        if !refines {
            return Ok(None);
        }
        let base: Plan = props
            .iter()
            .map(|(p, l)| (p.clone(), Source::Schema(l.clone()), required.contains(p)))
            .collect();
        let (deny_unknown, extra) = self.unknown_policy(loc, name, module)?;
        let mut variants = Vec::new();
        for v in &values {
            let of_value = |r: &&Row| r.admits(&tag, v);
            let mut plan = base.clone();
            for row in rows.iter().filter(of_value).filter(|r| r.tests.len() == 1) {
                self.narrow(&mut plan, &row.then);
            }
            tag_value(&mut plan, &tag, v);
            let raw = format!("{name} {v}");
            let deeper: Vec<&Row> = rows
                .iter()
                .filter(of_value)
                .filter(|r| r.tests.len() == 2)
                .collect();
            let origin = rows.iter().find(of_value).map_or_else(
                || TypeBuilder::at(loc, &["properties", &tag]),
                |r| r.then.clone(),
            );
            let ty = match (&second, deeper.is_empty()) {
                (_, true) | (None, _) => {
                    let tests = [(tag.as_str(), v.as_str())];
                    self.variant_struct(
                        (loc, name),
                        &raw,
                        module,
                        &origin,
                        &plan,
                        &tests,
                        (deny_unknown, extra.clone()),
                    )?
                }
                (Some(second), false) => {
                    let sub_schema = plan
                        .iter()
                        .find(|(p, _, req)| p == second && *req)
                        .and_then(|(_, s, _)| match s {
                            Source::Schema(l) => Some(l.clone()),
                            Source::Tag(..) => None,
                        });
                    let Some(sub_values) = self.string_enum(sub_schema)? else {
                        return Ok(None);
                    };
                    if !deeper.iter().all(|r| r.within(second, &sub_values)) {
                        return Ok(None);
                    }
                    let mut inner = Vec::new();
                    for w in &sub_values {
                        let mut sub_plan = plan.clone();
                        for row in deeper.iter().filter(|r| r.admits(second, w)) {
                            self.narrow(&mut sub_plan, &row.then);
                        }
                        tag_value(&mut sub_plan, second, w);
                        let tests = [(tag.as_str(), v.as_str()), (second.as_str(), w.as_str())];
                        let ty = self.variant_struct(
                            (loc, name),
                            &format!("{raw} {w}"),
                            module,
                            &origin,
                            &sub_plan,
                            &tests,
                            (deny_unknown, extra.clone()),
                        )?;
                        inner.push(Variant {
                            raw_name: w.clone(),
                            ty,
                            tag_values: vec![w.clone()],
                            node: None,
                        });
                    }
                    let members: Vec<Ty> = inner.iter().map(|v| v.ty.clone()).collect();
                    let union = Union {
                        tags: vec![second.clone()],
                        variants: inner,
                        within: Some((tag.clone(), v.clone())),
                    };
                    let tests = [(tag.as_str(), v.as_str())];
                    let doc = format!(
                        "The `{name}` variants whose `{tag}` is `{v}`, told apart by `{second}`."
                    );
                    let union_id = self.synthetic(
                        loc,
                        &raw,
                        module,
                        &origin,
                        &tests,
                        doc,
                        TypeKind::Union(union),
                    );
                    for m in members {
                        if let Ty::Named(m) = m {
                            self.types[m].variant_of = Some(union_id);
                        }
                    }
                    Ty::Named(union_id)
                }
            };
            if let Ty::Named(member) = ty {
                self.types[member].variant_of = Some(id);
            }
            variants.push(Variant {
                raw_name: v.clone(),
                ty,
                tag_values: vec![v.clone()],
                node: None,
            });
        }
        Ok(Some(Union {
            tags: vec![tag],
            variants,
            within: None,
        }))
    }

    /// The table's rows, when every `if` of the object's `allOf` tests only the `const` or
    /// `enum` of properties, has a `then` and no `else`; `None` when there are fewer than two.
    fn rows(&self, loc: &Loc) -> Option<Vec<Row>> {
        let obj = self.obj(loc)?;
        if obj.contains_key("oneOf") || obj.contains_key("anyOf") || obj.contains_key("if") {
            return None;
        }
        let mut rows = Vec::new();
        for (i, member) in obj.get("allOf")?.as_array()?.iter().enumerate() {
            let m = member.as_object()?;
            let Some(cond) = m.get("if") else { continue };
            if m.contains_key("else")
                || !m.get("then").is_some_and(Value::is_object)
                || m.keys()
                    .any(|k| !["if", "then", "description", "$comment"].contains(&k.as_str()))
            {
                return None;
            }
            let cond = cond.as_object()?;
            if cond.keys().any(|k| {
                !["properties", "required", "type", "description", "$comment"].contains(&k.as_str())
            }) {
                return None;
            }
            let required: Vec<&str> = cond
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut tests = Vec::new();
            for (p, s) in cond.get("properties")?.as_object()? {
                let s: &Map<String, Value> = s.as_object()?;
                let values = match (s.get("const"), s.get("enum")) {
                    (Some(c), None) => vec![c.clone()],
                    (None, Some(Value::Array(e))) if !e.is_empty() => e.clone(),
                    _ => return None,
                };
                let plain = s
                    .keys()
                    .all(|k| ["const", "enum", "description", "$comment"].contains(&k.as_str()));
                if !plain || !values.iter().all(|v| v.is_string() || v.is_null()) {
                    return None;
                }
                tests.push((p.clone(), values));
            }
            if tests.is_empty() {
                return None;
            }
            let then = TypeBuilder::at(loc, &["allOf", &i.to_string(), "then"]);
            let required = tests
                .iter()
                .map(|(p, _)| p.clone())
                .filter(|p| required.contains(&p.as_str()))
                .collect();
            rows.push(Row {
                tests,
                then,
                required,
            });
        }
        // Rows list the tag first; order the tests of two-test rows the same way.
        let tag = rows
            .iter()
            .find(|r| r.tests.len() == 1)
            .map(|r| r.tests[0].0.clone());
        if let Some(tag) = tag {
            for r in &mut rows {
                r.tests.sort_by_key(|(p, _)| *p != tag);
            }
        }
        (rows.len() >= 2).then_some(rows)
    }

    /// The values of a string enum schema (through `$ref`s); `None` for anything else.
    fn string_enum(&mut self, loc: Option<Loc>) -> Result<Option<Vec<String>>> {
        let Some(loc) = loc else { return Ok(None) };
        let target = self.follow_refs(&loc)?;
        Ok(match self.shape(&target)? {
            Shape::StringEnum(values, false) => Some(values),
            _ => None,
        })
    }

    /// The properties a `then` gives schemas for.
    fn then_properties(&self, then: &Loc) -> Vec<(String, Loc)> {
        let props = self
            .obj(then)
            .and_then(|o| o.get("properties"))
            .and_then(Value::as_object);
        props
            .into_iter()
            .flatten()
            .map(|(p, _)| (p.clone(), TypeBuilder::at(then, &["properties", p])))
            .collect()
    }

    /// Whether the schema at `then` gives a property another type than its `base` schema (a
    /// scalar of another kind, an enum, an object or a union), rather than only constraining it.
    fn retypes(&mut self, base: Option<Loc>, then: &Loc) -> Result<bool> {
        let narrow = self.follow_refs(then)?;
        let wide = match base {
            Some(b) => Some(self.follow_refs(&b)?),
            None => None,
        };
        if wide.as_ref() == Some(&narrow) {
            return Ok(false);
        }
        let wide_shape = match &wide {
            Some(w) => self.shape(w)?,
            None => Shape::Any,
        };
        Ok(match (self.shape(&narrow)?, wide_shape) {
            (Shape::Any, _) => false,
            (Shape::Scalar(a), Shape::Scalar(b)) => a != b,
            (Shape::Array, Shape::Array) => {
                let items = |tb: &Self, l: &Loc| tb.obj(l).is_some_and(|o| o.contains_key("items"));
                items(self, &narrow)
            }
            _ => true,
        })
    }

    /// Applies a `then`: its properties replace the plan's schemas, its `required` adds.
    fn narrow(&self, plan: &mut Plan, then: &Loc) {
        let Some(obj) = self.obj(then) else { return };
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for p in props.keys() {
                let req = plan.iter().any(|(q, _, r)| q == p && *r);
                set(
                    plan,
                    p,
                    Source::Schema(TypeBuilder::at(then, &["properties", p])),
                    req,
                );
            }
        }
        for r in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if let Some(entry) = plan.iter_mut().find(|(q, _, _)| q == r) {
                entry.2 = true;
            }
        }
    }

    /// A struct for one variant.
    #[allow(clippy::too_many_arguments)]
    fn variant_struct(
        &mut self,
        (loc, owner): (&Loc, &str),
        raw: &str,
        module: usize,
        origin: &Loc,
        plan: &Plan,
        tests: &[(&str, &str)],
        policy: (bool, Option<Ty>),
    ) -> Result<Ty> {
        let mut fields = Vec::new();
        for (wire, source, required) in plan {
            fields.push(match source {
                Source::Schema(l) => self.field(wire.clone(), l, *required, raw, module)?,
                Source::Tag(v, narrowed) => {
                    let doc = narrowed
                        .as_ref()
                        .and_then(|l| self.doc_and_annotations(l).0)
                        .or_else(|| self.tag_doc(loc, wire));
                    Field {
                        wire: wire.clone(),
                        doc,
                        ty: Ty::Literal(v.clone()),
                        required: true,
                        default: None,
                        annotations: Vec::new(),
                    }
                }
            });
        }
        let values: Vec<String> = tests
            .iter()
            .map(|(p, v)| format!("`{p}` is `{v}`"))
            .collect();
        let doc = format!("The `{owner}` variant whose {}.", values.join(" and "));
        let kind = TypeKind::Struct(Struct {
            fields,
            deny_unknown: policy.0,
            extra: policy.1,
        });
        Ok(Ty::Named(
            self.synthetic(loc, raw, module, origin, tests, doc, kind),
        ))
    }

    /// The description of the tag property in the table's own `properties`.
    fn tag_doc(&self, loc: &Loc, wire: &str) -> Option<String> {
        let at = TypeBuilder::at(loc, &["properties", wire]);
        self.obj(&at)
            .and_then(|o| o.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// Registers a type built from a table rather than found at one location; it validates as
    /// the table's schema with the tag properties fixed to `tests`.
    #[allow(clippy::too_many_arguments)]
    fn synthetic(
        &mut self,
        loc: &Loc,
        raw: &str,
        module: usize,
        origin: &Loc,
        tests: &[(&str, &str)],
        doc: String,
        kind: TypeKind,
    ) -> TypeId {
        let uri = self.comp.set().uri_of(loc);
        let props: Map<String, Value> = tests
            .iter()
            .map(|(p, v)| (p.to_string(), json!({ "const": v })))
            .collect();
        let required: Vec<&str> = tests.iter().map(|(p, _)| *p).collect();
        let schema = json!({ "$ref": uri, "properties": props, "required": required });
        let doc_id = self
            .comp
            .set_mut()
            .add_synthetic(&format!("variant {raw}"), schema);
        let node = self.comp.node(Loc {
            doc: doc_id,
            pointer: String::new(),
        });
        let id = self.types.len();
        self.types.push(TypeDef {
            raw_name: raw.to_string(),
            module,
            doc: Some(doc),
            origin: self.comp.set().location(origin),
            node,
            kind,
            annotations: Vec::new(),
            variant_of: None,
            open: None,
        });
        self.modules[module].types.push(id);
        id
    }
}

/// Fixes a tag property to `value`, keeping the schema it narrows for the field's doc.
fn tag_value(plan: &mut Plan, wire: &str, value: &str) {
    let narrowed = plan
        .iter()
        .find(|(w, _, _)| w == wire)
        .and_then(|(_, s, _)| match s {
            Source::Schema(l) => Some(l.clone()),
            Source::Tag(_, l) => l.clone(),
        });
    set(plan, wire, Source::Tag(value.to_string(), narrowed), true);
}

/// Sets a property's source in a plan, adding the property when the plan lacks it.
fn set(plan: &mut Plan, wire: &str, source: Source, required: bool) {
    match plan.iter_mut().find(|(w, _, _)| w == wire) {
        Some(entry) => {
            entry.1 = source;
            entry.2 = entry.2 || required;
        }
        None => plan.push((wire.to_string(), source, required)),
    }
}
