//! Compiles schema locations into validation nodes. Every reachable location gets a node id
//! before its checks are built, so forward and circular `$ref`s need no special case.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::checks::{Check, Format, JsonType, Node, NodeId, Pattern, PatternId, Program};
use super::BuildOptions;
use crate::error::{Diagnostic, Error, Location, Result, Severity};
use crate::schema::{pointer, Dialect, Loc, SchemaSet};

/// Keywords that only annotate, or that ctxgen reads elsewhere: never a diagnostic.
const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$ref",
    "$anchor",
    "$dynamicAnchor",
    "$defs",
    "definitions",
    "$comment",
    "$vocabulary",
    "title",
    "description",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "format",
    "type",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "discriminator",
    "nullable",
];

#[derive(Default)]
struct State {
    memo: HashMap<Loc, NodeId>,
    program: Program,
    patterns: HashMap<String, PatternId>,
    pending: Vec<(NodeId, Loc)>,
    diagnostics: Vec<Diagnostic>,
    /// Per document: whether `format` asserts (`format_assertion`).
    format_asserts: HashMap<usize, bool>,
}

impl State {
    fn node_for(&mut self, set: &SchemaSet, loc: Loc) -> NodeId {
        if let Some(id) = self.memo.get(&loc) {
            return *id;
        }
        let id = self.program.nodes.len();
        self.program.nodes.push(Node {
            origin: set.location(&loc),
            checks: Vec::new(),
        });
        self.memo.insert(loc.clone(), id);
        self.pending.push((id, loc));
        id
    }

    fn warn(&mut self, location: Location, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            location,
            message: message.into(),
        });
    }
}

/// Builds validation nodes for schema locations on demand.
pub struct Compiler<'s> {
    set: &'s mut SchemaSet,
    state: State,
    options: BuildOptions,
}

impl<'s> Compiler<'s> {
    pub fn new(set: &'s mut SchemaSet, options: BuildOptions) -> Self {
        Compiler {
            set,
            state: State::default(),
            options,
        }
    }

    pub fn set(&self) -> &SchemaSet {
        self.set
    }

    pub fn set_mut(&mut self) -> &mut SchemaSet {
        self.set
    }

    /// The node for a location, compiled by the next [`Compiler::run`].
    pub fn node(&mut self, loc: Loc) -> NodeId {
        self.state.node_for(self.set, loc)
    }

    /// Compiles every pending node, and those they reach.
    pub fn run(&mut self) -> Result<()> {
        while let Some((id, loc)) = self.state.pending.pop() {
            let checks = self.compile(&loc)?;
            self.state.program.nodes[id].checks = checks;
        }
        Ok(())
    }

    pub fn finish(self) -> (Program, Vec<Diagnostic>, HashMap<Loc, NodeId>) {
        (self.state.program, self.state.diagnostics, self.state.memo)
    }

    fn compile(&mut self, loc: &Loc) -> Result<Vec<Check>> {
        let here = self.set.location(loc);
        let dialect = self.set.docs[loc.doc].dialect;
        let reference = match self.set.value(loc) {
            Some(Value::Bool(true)) => return Ok(Vec::new()),
            Some(Value::Bool(false)) => return Ok(vec![Check::False]),
            Some(Value::Object(obj)) => {
                let dynamic = ["$dynamicRef", "$recursiveRef"]
                    .into_iter()
                    .find_map(|k| obj.get(k).map(|v| (k, v)));
                if let Some((k, _)) = dynamic {
                    self.state.warn(
                        here.clone(),
                        format!("`{k}` is resolved statically, like `$ref`"),
                    );
                }
                let r = obj.get("$ref").or(dynamic.map(|d| d.1));
                match r {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => return Err(Error::schema(here, "`$ref` must be a string")),
                    None => None,
                }
            }
            Some(_) => {
                return Err(Error::schema(
                    here,
                    "a schema must be an object or a boolean",
                ))
            }
            None => return Err(Error::schema(here, "no schema at this location")),
        };
        let mut checks = Vec::new();
        if let Some(r) = reference {
            let target = self.set.resolve(loc, &r)?;
            let id = self.state.node_for(self.set, target);
            checks.push(Check::Ref(id));
            if dialect.ref_overrides_siblings() {
                return Ok(checks);
            }
        }
        let assert_formats = match self.state.format_asserts.get(&loc.doc) {
            Some(a) => *a,
            None => {
                let a = super::format_assertion::asserts(
                    self.set,
                    loc.doc,
                    self.options.assert_formats,
                );
                self.state.format_asserts.insert(loc.doc, a);
                a
            }
        };
        let obj = match self.set.value(loc) {
            Some(Value::Object(o)) => o,
            _ => unreachable!("checked above"),
        };
        let mut b = Builder {
            set: &*self.set,
            state: &mut self.state,
            loc,
            here: &here,
            obj,
            dialect,
            assert_formats,
            checks,
        };
        b.build()?;
        Ok(b.checks)
    }
}

struct Builder<'a> {
    set: &'a SchemaSet,
    state: &'a mut State,
    loc: &'a Loc,
    here: &'a Location,
    obj: &'a Map<String, Value>,
    dialect: Dialect,
    /// `format` asserts here (`format_assertion`).
    assert_formats: bool,
    checks: Vec<Check>,
}

impl Builder<'_> {
    fn at(&self, keyword: &str) -> Location {
        Location::new(
            self.here.file.clone(),
            pointer::push(&self.here.pointer, keyword),
        )
    }

    fn err(&self, keyword: &str, message: impl Into<String>) -> Error {
        Error::schema(self.at(keyword), message)
    }

    fn child(&mut self, path: &[&str]) -> NodeId {
        let mut p = self.loc.pointer.clone();
        for t in path {
            p = pointer::push(&p, t);
        }
        self.state.node_for(
            self.set,
            Loc {
                doc: self.loc.doc,
                pointer: p,
            },
        )
    }

    fn count(&self, keyword: &str) -> Result<Option<u64>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(v) => match v.as_u64().or_else(|| {
                v.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            }) {
                Some(n) => Ok(Some(n)),
                None => Err(self.err(
                    keyword,
                    format!("`{keyword}` must be a non-negative integer"),
                )),
            },
        }
    }

    fn number(&self, keyword: &str) -> Result<Option<f64>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be a number"))),
        }
    }

    fn pattern(&mut self, keyword_loc: Location, source: &str) -> Option<PatternId> {
        if let Some(id) = self.state.patterns.get(source) {
            return Some(*id);
        }
        if let Err(e) = regress::Regex::with_flags(source, "u") {
            self.state.warn(keyword_loc, format!("pattern `{source}` is not a valid ECMA-262 regular expression ({e}); it is not enforced"));
            return None;
        }
        let id = self.state.program.patterns.len();
        self.state.program.patterns.push(Pattern {
            source: source.to_string(),
        });
        self.state.patterns.insert(source.to_string(), id);
        Some(id)
    }

    fn strings(&self, keyword: &str, v: &Value) -> Result<Vec<String>> {
        v.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|s| s.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be an array of strings")))
    }

    fn build(&mut self) -> Result<()> {
        let obj = self.obj;
        for key in obj.keys() {
            let k = key.as_str();
            if k.starts_with("x-")
                || KNOWN.contains(&k)
                || k == "$dynamicRef"
                || k == "$recursiveRef"
                || k == "$recursiveAnchor"
            {
                continue;
            }
            if k == "unevaluatedProperties" || k == "unevaluatedItems" {
                self.state.warn(
                    self.at(k),
                    format!("`{k}` is not enforced by the generated validators"),
                );
            }
        }
        self.type_checks()?;
        self.string_checks()?;
        self.number_checks()?;
        self.array_checks()?;
        self.object_checks()?;
        self.applicators()?;
        Ok(())
    }

    fn type_checks(&mut self) -> Result<()> {
        if let Some(t) = self.obj.get("type") {
            let names: Vec<&Value> = match t {
                Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            let mut types = Vec::new();
            for n in names {
                match n.as_str().and_then(JsonType::parse) {
                    Some(t) => types.push(t),
                    None if n.as_str() == Some("any") => return Ok(()),
                    None => return Err(self.err("type", format!("unknown type {n}"))),
                }
            }
            self.checks.push(Check::Type(types));
        }
        if let Some(c) = self.obj.get("const") {
            self.checks.push(Check::Const(c.clone()));
        }
        if let Some(e) = self.obj.get("enum") {
            let values = e
                .as_array()
                .ok_or_else(|| self.err("enum", "`enum` must be an array"))?;
            self.checks.push(Check::Enum(values.clone()));
        }
        Ok(())
    }

    fn string_checks(&mut self) -> Result<()> {
        if let Some(n) = self.count("minLength")? {
            self.checks.push(Check::MinLength(n));
        }
        if let Some(n) = self.count("maxLength")? {
            self.checks.push(Check::MaxLength(n));
        }
        if let Some(p) = self.obj.get("pattern") {
            let p = p
                .as_str()
                .ok_or_else(|| self.err("pattern", "`pattern` must be a string"))?;
            if let Some(id) = self.pattern(self.at("pattern"), p) {
                self.checks.push(Check::Pattern(id));
            }
        }
        if let Some(f) = self
            .obj
            .get("format")
            .and_then(Value::as_str)
            .and_then(Format::parse)
            .filter(|_| self.assert_formats)
        {
            // Drafts 4 and 6 read `hostname` as RFC 1034/1123, without the IDNA rules.
            let f = match (f, self.dialect) {
                (Format::Hostname, Dialect::Draft4 | Dialect::Draft6) => Format::HostnameRfc1123,
                _ => f,
            };
            self.checks.push(Check::Format(f));
        }
        if let Some(n) = self.count("x-max-words")? {
            self.checks.push(Check::MaxWords(n));
        }
        Ok(())
    }

    fn number_checks(&mut self) -> Result<()> {
        let obj = self.obj;
        let exclusive = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
        if let Some(n) = self.number("minimum")? {
            self.checks.push(if exclusive("exclusiveMinimum") {
                Check::ExclusiveMinimum(n)
            } else {
                Check::Minimum(n)
            });
        }
        if let Some(n) = self.number("maximum")? {
            self.checks.push(if exclusive("exclusiveMaximum") {
                Check::ExclusiveMaximum(n)
            } else {
                Check::Maximum(n)
            });
        }
        for (k, make) in [
            (
                "exclusiveMinimum",
                Check::ExclusiveMinimum as fn(f64) -> Check,
            ),
            ("exclusiveMaximum", Check::ExclusiveMaximum),
        ] {
            match self.obj.get(k) {
                Some(Value::Bool(_)) | None => {}
                Some(v) => match v.as_f64() {
                    Some(n) => self.checks.push(make(n)),
                    None => return Err(self.err(k, format!("`{k}` must be a number"))),
                },
            }
        }
        if let Some(m) = self.number("multipleOf")? {
            if m <= 0.0 {
                return Err(self.err("multipleOf", "`multipleOf` must be greater than 0"));
            }
            self.checks.push(Check::MultipleOf(m));
        }
        Ok(())
    }

    fn array_checks(&mut self) -> Result<()> {
        if let Some(n) = self.count("minItems")? {
            self.checks.push(Check::MinItems(n));
        }
        if let Some(n) = self.count("maxItems")? {
            self.checks.push(Check::MaxItems(n));
        }
        if self.obj.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
            self.checks.push(Check::UniqueItems);
        }
        let mut prefix = 0;
        if let Some(Value::Array(items)) = self.obj.get("prefixItems") {
            let nodes = (0..items.len())
                .map(|i| self.child(&["prefixItems", &i.to_string()]))
                .collect::<Vec<_>>();
            prefix = nodes.len();
            self.checks.push(Check::PrefixItems(nodes));
        }
        match self.obj.get("items") {
            Some(Value::Array(items)) => {
                let nodes = (0..items.len())
                    .map(|i| self.child(&["items", &i.to_string()]))
                    .collect::<Vec<_>>();
                let from = nodes.len();
                self.checks.push(Check::PrefixItems(nodes));
                match self.obj.get("additionalItems") {
                    Some(Value::Bool(false)) => self.checks.push(Check::NoItems {
                        from,
                        keyword: "additionalItems",
                    }),
                    Some(v) if v.is_object() => {
                        let node = self.child(&["additionalItems"]);
                        self.checks.push(Check::Items { from, node });
                    }
                    _ => {}
                }
            }
            Some(Value::Bool(false)) => self.checks.push(Check::NoItems {
                from: prefix,
                keyword: "items",
            }),
            Some(Value::Bool(true)) => {}
            Some(v) if v.is_object() => {
                let node = self.child(&["items"]);
                self.checks.push(Check::Items { from: prefix, node });
            }
            Some(_) => {
                return Err(self.err("items", "`items` must be a schema or an array of schemas"))
            }
            None => {}
        }
        if self.obj.contains_key("contains") {
            let node = self.child(&["contains"]);
            let legacy = matches!(
                self.dialect,
                Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7
            );
            let min = if legacy {
                None
            } else {
                self.count("minContains")?
            };
            let max = if legacy {
                None
            } else {
                self.count("maxContains")?
            };
            self.checks.push(Check::Contains {
                node,
                min: min.unwrap_or(1),
                max,
            });
        }
        Ok(())
    }

    fn object_checks(&mut self) -> Result<()> {
        let mut known = Vec::new();
        if let Some(props) = self.obj.get("properties") {
            let props = props
                .as_object()
                .ok_or_else(|| self.err("properties", "`properties` must be an object"))?;
            let mut list = Vec::new();
            for name in props.keys() {
                known.push(name.clone());
                list.push((name.clone(), self.child(&["properties", name])));
            }
            self.checks.push(Check::Properties(list));
        }
        let mut patterns = Vec::new();
        if let Some(pp) = self.obj.get("patternProperties") {
            let pp = pp.as_object().ok_or_else(|| {
                self.err("patternProperties", "`patternProperties` must be an object")
            })?;
            let mut list = Vec::new();
            for p in pp.keys() {
                let at = Location::new(
                    self.here.file.clone(),
                    pointer::push(&pointer::push(&self.here.pointer, "patternProperties"), p),
                );
                match self.pattern(at, p) {
                    Some(id) => {
                        patterns.push(id);
                        list.push((id, self.child(&["patternProperties", p])));
                    }
                    // An unusable pattern still marks names as not additional: accept them all.
                    None => return Err(self.err("patternProperties", format!("pattern `{p}` cannot be compiled, so `additionalProperties` cannot be decided"))),
                }
            }
            self.checks.push(Check::PatternProperties(list));
        }
        match self.obj.get("additionalProperties") {
            Some(Value::Bool(false)) => self
                .checks
                .push(Check::NoAdditionalProperties { known, patterns }),
            Some(Value::Bool(true)) | None => {}
            Some(v) if v.is_object() => {
                let node = self.child(&["additionalProperties"]);
                self.checks.push(Check::AdditionalProperties {
                    known,
                    patterns,
                    node,
                });
            }
            Some(_) => {
                return Err(self.err(
                    "additionalProperties",
                    "`additionalProperties` must be a schema",
                ))
            }
        }
        if let Some(r) = self.obj.get("required") {
            if r.is_array() {
                let names = self.strings("required", r)?;
                if !names.is_empty() {
                    self.checks.push(Check::Required(names));
                }
            } else {
                self.state.warn(
                    self.at("required"),
                    "`required` that is not an array (draft-03) is ignored",
                );
            }
        }
        if let Some(n) = self.count("minProperties")? {
            self.checks.push(Check::MinProperties(n));
        }
        if let Some(n) = self.count("maxProperties")? {
            self.checks.push(Check::MaxProperties(n));
        }
        if self.obj.contains_key("propertyNames") {
            let node = self.child(&["propertyNames"]);
            self.checks.push(Check::PropertyNames(node));
        }
        let mut required = Vec::new();
        let mut schemas = Vec::new();
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            let Some(deps) = self.obj.get(keyword) else {
                continue;
            };
            let deps = deps
                .as_object()
                .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be an object")))?;
            for (name, dep) in deps {
                if dep.is_array() && keyword != "dependentSchemas" {
                    required.push((name.clone(), self.strings(keyword, dep)?));
                } else if (dep.is_object() || dep.is_boolean()) && keyword != "dependentRequired" {
                    schemas.push((name.clone(), self.child(&[keyword, name])));
                } else {
                    return Err(
                        self.err(keyword, format!("`{keyword}/{name}` has the wrong shape"))
                    );
                }
            }
        }
        if !required.is_empty() {
            self.checks.push(Check::DependentRequired(required));
        }
        if !schemas.is_empty() {
            self.checks.push(Check::DependentSchemas(schemas));
        }
        Ok(())
    }

    fn list(&mut self, keyword: &str) -> Result<Option<Vec<NodeId>>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(Value::Array(a)) if !a.is_empty() => Ok(Some(
                (0..a.len())
                    .map(|i| self.child(&[keyword, &i.to_string()]))
                    .collect(),
            )),
            Some(_) => Err(self.err(
                keyword,
                format!("`{keyword}` must be a non-empty array of schemas"),
            )),
        }
    }

    fn applicators(&mut self) -> Result<()> {
        if let Some(all) = self.list("allOf")? {
            self.checks.extend(all.into_iter().map(Check::Ref));
        }
        if let Some(any) = self.list("anyOf")? {
            self.checks.push(Check::AnyOf(any));
        }
        if let Some(one) = self.list("oneOf")? {
            self.checks.push(Check::OneOf(one));
        }
        if self.obj.contains_key("not") {
            let node = self.child(&["not"]);
            self.checks.push(Check::Not(node));
        }
        if self.obj.contains_key("if")
            && (self.obj.contains_key("then") || self.obj.contains_key("else"))
        {
            let cond = self.child(&["if"]);
            let then = self.obj.contains_key("then").then(|| self.child(&["then"]));
            let otherwise = self.obj.contains_key("else").then(|| self.child(&["else"]));
            self.checks.push(Check::IfThenElse {
                cond,
                then,
                otherwise,
            });
        }
        Ok(())
    }
}
